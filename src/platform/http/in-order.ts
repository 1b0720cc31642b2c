import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Several middleware run one after another as one router layer, as Express 5
 * would run them: each goes on with `next()`, a `next(error)`, a throw or a
 * rejected promise goes to the error handlers, and one that answers without
 * calling `next` ends the chain. Express's router costs time for each layer on
 * every request (matching, prefix trimming, bookkeeping); the middleware that
 * every request passes through are run this way (docs/performance-history.md).
 * `next('route')` and `next('router')` are not for these middleware.
 */
export function inOrder(...handlers: RequestHandler[]): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) {
        next(error);
        return;
      }
      const handler = handlers[index];
      index += 1;
      if (handler === undefined) {
        next();
        return;
      }
      try {
        const result: unknown = handler(request, response, step);
        if (result instanceof Promise) result.catch((rejection: unknown) => next(rejection ?? new Error('Rejected promise')));
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}

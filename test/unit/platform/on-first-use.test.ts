import type { NextFunction, Request, Response } from 'express';
import { routeNotFound } from '../../../src/platform/http/not-found';
import { onFirstUse } from '../../../src/platform/on-first-use';

describe('onFirstUse', () => {
  it('makes nothing until asked, then makes once and keeps it, an undefined value too', () => {
    const make = jest.fn(() => undefined);
    const value = onFirstUse(make);
    expect(make).not.toHaveBeenCalled();
    expect(value()).toBeUndefined();
    expect(value()).toBeUndefined();
    expect(make).toHaveBeenCalledTimes(1);
  });
});

describe('routeNotFound', () => {
  const notFound = (handler: ReturnType<typeof routeNotFound>, method: string, path: string): unknown => {
    try {
      void handler({ method, path } as Request, {} as Response, (() => undefined) as NextFunction);
    } catch (error) {
      return error;
    }
    throw new Error('the handler answered instead of throwing');
  };

  it('reads the documented paths on the first request no route took, not when made, and once', () => {
    // The paths come from the whole OpenAPI document, which a process makes only when first needed (app.ts).
    const paths = jest.fn(() => ({ '/v1/customers/{id}': { get: {}, delete: {} } }));
    const handler = routeNotFound(paths);
    expect(paths).not.toHaveBeenCalled();
    expect(notFound(handler, 'PUT', '/v1/customers/c-1')).toMatchObject({
      errorCode: 'METHOD_NOT_ALLOWED',
      details: { headers: { Allow: 'DELETE, GET, HEAD' } },
    });
    expect(notFound(handler, 'GET', '/nowhere')).toMatchObject({ errorCode: 'ROUTE_NOT_FOUND' });
    expect(paths).toHaveBeenCalledTimes(1);
  });
});

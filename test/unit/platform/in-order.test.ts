import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import { inOrder } from '../../../src/platform/http/in-order';

/** An app whose one route answers with what the middleware before it marked on the request. */
function appWith(chain: RequestHandler): express.Express {
  const app = express();
  app.use(chain);
  app.get('/', (req, res) => {
    res.json({ marks: (req as unknown as { marks?: string[] }).marks ?? [] });
  });
  const onError: ErrorRequestHandler = (error: Error, _req, res, _next) => {
    res.status(500).json({ error: error.message });
  };
  app.use(onError);
  return app;
}

const mark =
  (name: string): RequestHandler =>
  (req, _res, next) => {
    const marked = req as unknown as { marks?: string[] };
    marked.marks = [...(marked.marks ?? []), name];
    next();
  };

describe('inOrder', () => {
  it('runs each middleware in turn, then goes on to the routes', async () => {
    const answer = await request(appWith(inOrder(mark('a'), mark('b'), mark('c')))).get('/');
    expect(answer.body).toEqual({ marks: ['a', 'b', 'c'] });
  });

  it('waits for an async middleware before the next one', async () => {
    const slow: RequestHandler = async (req, res, next) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      mark('slow')(req, res, next);
    };
    const answer = await request(appWith(inOrder(slow, mark('after')))).get('/');
    expect(answer.body).toEqual({ marks: ['slow', 'after'] });
  });

  it('sends next(error), a throw and a rejected promise to the error handlers, and runs nothing after', async () => {
    const failures: Array<[string, RequestHandler]> = [
      ['passed on', (_req, _res, next) => next(new Error('passed on'))],
      [
        'thrown',
        () => {
          throw new Error('thrown');
        },
      ],
      [
        'rejected',
        async () => {
          await Promise.resolve();
          throw new Error('rejected');
        },
      ],
    ];
    for (const [message, failure] of failures) {
      const answer = await request(appWith(inOrder(mark('a'), failure, mark('never')))).get('/');
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({ error: message });
    }
  });

  it('ends the chain when a middleware answers without calling next', async () => {
    const answers: RequestHandler = (_req, res) => {
      res.status(403).json({ refused: true });
    };
    const answer = await request(appWith(inOrder(mark('a'), answers, mark('never')))).get('/');
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ refused: true });
  });
});

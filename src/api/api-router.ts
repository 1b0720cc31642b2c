import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Knex } from 'knex';
import { SESSION_SECRET_HEADER, type SessionGrantLookup } from '../auth/session-grant';
import { idempotencyKeyOf, IDEMPOTENT_REPLAYED_HEADER } from '../idempotency/idempotency-key';
import type { IdempotentCreates } from '../idempotency/idempotent-creates';
import type { StoredReply } from '../idempotency/idempotency-keys.repository';
import { runIdempotently } from '../idempotency/idempotent-request';
import { readJsonBody } from '../platform/http/json-body';
import { sendJson } from '../platform/http/json-answer';
import { authOf, locationOf } from '../platform/http/request-context';
import { parseInput } from '../platform/validation/parse-input';
import { authorize, checkSessionGrant } from './access';
import { sendStreamedFile, StreamedFile } from '../platform/http/streamed-file';
import { expressRoute, type Operation, type SentReply } from './operation';

export interface ApiDependencies<Services> {
  /** The pool: what a handler acts on when its request has no Idempotency-Key. */
  db: Knex;
  services: Services;
  creates: IdempotentCreates;
  /** Wired once, for every browser read that rests on a session secret. */
  sessionGrant: SessionGrantLookup;
}

/** A 2xx answer with its secret field set (null: the form kept for an Idempotency-Key); any other answer as it is. */
function withSecret(reply: StoredReply, field: string, value: string | null): StoredReply {
  if (reply.status >= 300 || typeof reply.body !== 'object' || reply.body === null) return reply;
  return { ...reply, body: { ...(reply.body as Record<string, unknown>), [field]: value } };
}

async function send(request: Request, response: Response, reply: SentReply): Promise<void> {
  // Quoted, as RFC 9110 writes an entity tag; res.json answers 304 to a request that holds it.
  if (reply.etag !== undefined) response.setHeader('ETag', `"${reply.etag}"`);
  if (reply.body instanceof StreamedFile) await sendStreamedFile(request, response, reply.status, reply.body);
  else if (reply.body === undefined) response.status(reply.status).end();
  else if (reply.etag === undefined) sendJson(response, reply.status, reply.body);
  else response.status(reply.status).json(reply.body);
}

/**
 * One operation as one Express handler, after the /v1 middleware has
 * authenticated the token (401), read the location (400) and checked the
 * token's entitlement to it (403): the operation's access (403 scope, 401
 * session secret), its body, its path, query and body parsed with its
 * schemas (400), then its handler, in the claim's transaction when the
 * request brings an Idempotency-Key.
 */
function handlerOf<Services>(operation: Operation<Services>, dependencies: ApiDependencies<Services>): RequestHandler {
  const { access, body: bodyDeclaration } = operation;
  const routeTemplate = expressRoute(operation.path);
  const readsBody = bodyDeclaration !== undefined;
  const anyContentType = bodyDeclaration?.anyContentType ?? false;
  const emptyBody = bodyDeclaration?.optional ? {} : undefined;

  return async (request: Request, response: Response) => {
    request.routeTemplate = routeTemplate;
    const caller = authOf(request);
    const location = locationOf(request);
    const sessionSecret = access.sessionSecret === undefined ? undefined : request.get(SESSION_SECRET_HEADER);
    const pendingGrant = authorize(access, caller, { locationId: location, sessionSecret }, dependencies.sessionGrant);
    const grant = pendingGrant === undefined ? undefined : await pendingGrant;
    if (readsBody) await readJsonBody(request, response, { anyContentType });
    const key = operation.idempotent ? idempotencyKeyOf(request) : undefined;

    const params = operation.params === undefined ? undefined : parseInput(operation.params, request.params);
    checkSessionGrant(access, grant, params);
    const query = operation.query === undefined ? undefined : parseInput(operation.query, request.query);
    const body = bodyDeclaration === undefined ? undefined : parseInput(bodyDeclaration.schema, request.body ?? emptyBody);
    // Let in by the secret alone: a server that also sends the header holds the scope.
    const bySessionSecret = grant !== undefined && !caller.scopes.has(access.scope);
    const input = { location, caller, bySessionSecret, params, query, body };
    const origin = { requestId: request.requestId, clientId: caller.clientId, idempotencyKey: key ?? null };
    const withDb = (db: Knex) => ({ ...input, db, write: { db, locationId: location, origin } });
    const { afterCommit } = operation;
    const settled = async (reply: SentReply) =>
      afterCommit === undefined || reply.status >= 300
        ? reply
        : afterCommit({ write: withDb(dependencies.db).write, answer: reply.body as Record<string, unknown> }, dependencies.services);

    if (key === undefined) {
      await send(request, response, await settled(await operation.handle(withDb(dependencies.db), dependencies.services)));
      return;
    }
    const secret = operation.secretInAnswer;
    const outcome = await runIdempotently(dependencies.creates, request, key, (db) => operation.handle(withDb(db), dependencies.services), {
      ...(secret === undefined ? {} : { toStored: (reply) => withSecret(reply, secret.field, null) }),
    });
    const reply = await settled(outcome.reply);
    if (outcome.kind === 'fresh') {
      await send(request, response, reply);
      return;
    }
    response.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
    if (secret === undefined || reply.status >= 300) {
      await send(request, response, reply);
      return;
    }
    const answer = reply.body as Record<string, unknown>;
    await send(request, response, withSecret(reply, secret.field, await secret.reread({ db: dependencies.db, location, answer }, dependencies.services)));
  };
}

/** Every /v1 operation, each as one route of one router mounted at /v1, in the order given (the busiest first). */
export function apiRouter<Services>(operations: readonly Operation<Services>[], dependencies: ApiDependencies<Services>): Router {
  const router = Router();
  for (const operation of operations) {
    router[operation.method](expressRoute(operation.path).replace(/^\/v1/, ''), handlerOf(operation, dependencies));
  }
  return router;
}

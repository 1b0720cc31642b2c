import type { Knex } from 'knex';
import type { z } from 'zod';
import type { ErrorCode } from '../platform/errors/error-catalog';
import type { WriteContext } from '../change-log/write-context';
import type { AccessTokenClaims } from '../platform/http/request-context';
import type { Access } from './access';
import type { ApiTag } from './api-tags';
import type { StreamedFile } from '../platform/http/streamed-file';

export const HTTP_METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Path parameters and query strings are objects; a body may be any JSON. */
type InputSchema = z.ZodObject | undefined;
type BodySchema = z.ZodType | undefined;
type Parsed<Schema> = Schema extends z.ZodType ? z.output<Schema> : undefined;

/** A success answer: its description, and its JSON body's schema (none for 204), or the file it streams instead. */
export interface ResponseDeclaration {
  description: string;
  schema?: z.ZodType;
  /** A file answer (the handler's body is a StreamedFile): its media type and an example of its text, for the document. */
  file?: { mediaType: 'text/csv'; example: string };
  /** The answer carries an ETag (the reply's `etag`) when this holds, in the document's words. */
  etag?: string;
}

export type Responses = Partial<Record<200 | 201 | 202 | 204, ResponseDeclaration>>;

/** What a handler answers: one of the declared statuses, with a body of that status's schema (or its file). */
export type Reply<R extends Responses> = {
  [Status in keyof R]: {
    status: Status;
    body: R[Status] extends { file: object } ? StreamedFile : R[Status] extends { schema: infer Schema extends z.ZodType } ? z.input<Schema> : undefined;
    /**
     * A strong validator of what is answered, for a representation that never
     * changes (a closed batch): sent as ETag, and a GET whose If-None-Match
     * holds it is answered 304 without a body.
     */
    etag?: string;
  };
}[keyof R];

/** What the router sends, whatever the operation. */
export interface SentReply {
  status: number;
  body: unknown;
  etag?: string;
}

export interface BodyDeclaration<Schema> {
  schema: Schema;
  /** The spec's wildcard media type: the body is read as JSON whatever Content-Type says. */
  anyContentType?: boolean;
  /** No body at all is read as `{}`; otherwise it is a 400. */
  optional?: boolean;
}

/** What a handler is given: the parsed request, and the database to act on. */
export interface OperationInput<Params, Query, Body> {
  /**
   * The claim's transaction for a request with an Idempotency-Key, so that the
   * records it makes and the answer stored for its key commit together; the
   * pool otherwise.
   */
  db: Knex;
  location: string;
  caller: AccessTokenClaims;
  /** Whether the caller was let in by a session secret alone (the browser side), without the operation's scope. */
  bySessionSecret: boolean;
  /** `db` and `location` with the request's origin (what its events record): what a service's write methods take. */
  write: WriteContext;
  params: Params;
  query: Query;
  body: Body;
}

/**
 * A field of an idempotent operation's 2xx answer that holds a secret (a
 * session secret, a signing secret): the answer kept for its
 * Idempotency-Key is stored without it, and a replay reads it from the
 * record again (the current one, should it have been rotated since).
 */
export interface SecretInAnswer<Services> {
  field: string;
  /** The secret as the record holds it now; throws the record's 404 when it is gone. */
  reread(input: { db: Knex; location: string; answer: Record<string, unknown> }, services: Services): Promise<string>;
}

/**
 * Work after an operation's answer is made and, with an Idempotency-Key,
 * committed with it: asking a payment processor, which must never happen
 * inside the key's transaction (it would hold a pooled connection, PGlite's
 * only one, for as long as the processor takes). The answer sent is what it
 * answers. A replay runs it on the stored answer too, so a retry sees the
 * record as it stands now, and asks again (with the processor's own
 * idempotency key) if the first attempt got no answer.
 */
export type AfterCommit<Services> = (
  input: { write: WriteContext; answer: Record<string, unknown> },
  services: Services,
) => Promise<{ status: number; body: unknown }>;

/** What describes an operation, whatever its input types. */
interface OperationDescription {
  method: HttpMethod;
  /** OpenAPI's template, starting with /v1: `/v1/customers/{id}`. */
  path: `/v1/${string}`;
  operationId: string;
  tag: ApiTag;
  summary: string;
  description: string;
  /** The operation's own failures; what every operation can answer is added (operation-document.ts). */
  errors: readonly ErrorCode[];
}

/**
 * One /v1 operation, declared once: the router, the OpenAPI document, the
 * 405 answers, the scope table and the scope tests are all derived from it.
 * `Services` are the feature services its handler calls, passed by app.ts.
 */
export interface OperationDeclaration<
  Services,
  P extends InputSchema = undefined,
  Q extends InputSchema = undefined,
  B extends BodySchema = undefined,
  R extends Responses = Responses,
> extends OperationDescription {
  access: Access<Extract<keyof Parsed<P>, string>>;
  /** Takes an Idempotency-Key: the header, the replay header, the 409/422 answers and the claim come with it. */
  idempotent?: boolean;
  /** With `idempotent`: the answer's field that holds a secret, never stored with the answer. */
  secretInAnswer?: SecretInAnswer<Services>;
  /** Run on a 2xx answer, on the pool, before it is sent (see AfterCommit). */
  afterCommit?: AfterCommit<Services>;
  params?: P;
  query?: Q;
  body?: BodyDeclaration<B>;
  responses: R;
  /** Calls one service method with the parsed request; never sends the answer itself. */
  handle(input: OperationInput<Parsed<P>, Parsed<Q>, Parsed<B>>, services: Services): Promise<Reply<NoInfer<R>>>;
}

/** A declared operation, its input types erased: what the router and the document read. */
export interface Operation<Services> extends OperationDescription {
  access: Access;
  idempotent: boolean;
  secretInAnswer?: SecretInAnswer<Services>;
  afterCommit?: AfterCommit<Services>;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: BodyDeclaration<z.ZodType>;
  responses: Responses;
  handle(input: OperationInput<unknown, unknown, unknown>, services: Services): Promise<SentReply>;
}

const TEMPLATE_PARAMETER = /\{([^}]+)\}/g;

/** The path's parameter names, in order: `/v1/customers/{id}` → ['id']. */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(TEMPLATE_PARAMETER)].map((match) => match[1] as string);
}

/** `/v1/customers/{id}` → `/v1/customers/:id`: Express's form of the route, which logs and metrics name it by. */
export function expressRoute(path: string): string {
  return path.replace(TEMPLATE_PARAMETER, ':$1');
}

function shapeKeys(schema: z.ZodType | undefined): string[] {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape === undefined ? [] : Object.keys(shape);
}

/** A declaration whose path and params disagree fails when the module loads, not on a request. */
function checkDeclaration(declaration: Operation<unknown>): void {
  const inPath = pathParameters(declaration.path).sort().join(',');
  const declared = shapeKeys(declaration.params).sort().join(',');
  if (inPath !== declared) {
    throw new Error(`${declaration.operationId}: the path has parameters [${inPath}] but params declares [${declared}]`);
  }
  const secret = declaration.access.sessionSecret;
  if (secret !== undefined && !pathParameters(declaration.path).includes(secret.param)) {
    throw new Error(`${declaration.operationId}: the session secret is matched against ${secret.param}, which is not in the path`);
  }
  if (declaration.idempotent && declaration.method !== 'post') {
    throw new Error(`${declaration.operationId}: only a POST takes an Idempotency-Key`);
  }
  if (Object.values(declaration.responses).some((response) => response.file !== undefined) && declaration.method !== 'get') {
    throw new Error(`${declaration.operationId}: a file answer is read, never made: only a GET streams one`);
  }
  if (declaration.secretInAnswer !== undefined && !declaration.idempotent) {
    throw new Error(`${declaration.operationId}: secretInAnswer says how a stored answer leaves out its secret; only an idempotent operation stores one`);
  }
}

/**
 * The way a feature declares its operations: `operationsOf<{ customers: CustomersService }>()`
 * gives the `operation` function whose handlers receive those services.
 */
export function operationsOf<Services>() {
  return function operation<
    P extends InputSchema = undefined,
    Q extends InputSchema = undefined,
    B extends BodySchema = undefined,
    R extends Responses = Responses,
  >(declaration: OperationDeclaration<Services, P, Q, B, R>): Operation<Services> {
    const declared = { ...declaration, idempotent: declaration.idempotent ?? false } as unknown as Operation<Services>;
    checkDeclaration(declared as Operation<unknown>);
    return Object.freeze(declared);
  };
}

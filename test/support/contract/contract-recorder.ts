import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { DOCS_PATH } from '../../../src/docs/docs.openapi';
import { contractProblems, errorMessageProblems, operationOf, type ObservedResponse } from './openapi-contract';

/** Problems seen since the last `takeContractViolations()`; the setup file fails the test that caused them. */
const violations: string[] = [];
/** Operations (`METHOD /template`) this test file's requests reached. */
export const exercisedOperations = new Set<string>();

export function takeContractViolations(): string[] {
  return violations.splice(0, violations.length);
}

function pathOf(url: string | undefined): string {
  return (url ?? '/').split('?')[0] ?? '/';
}

function check(observed: ObservedResponse): void {
  // A CORS preflight is the browser's transport check, not an operation.
  if (observed.method === 'OPTIONS') return;
  const found = operationOf(observed.method, observed.path);
  // The reference page and its static files are a page for people, not operations (the documented error page is one).
  if (found === undefined && (observed.path === DOCS_PATH || observed.path.startsWith(`${DOCS_PATH}/`))) return;
  if (found === undefined) {
    // No documented operation here: the answer can only be an error, and it must be an ErrorMessage.
    const problems = observed.status < 400 ? [`answered ${observed.status} for an operation the document does not have`] : errorMessageProblems(observed);
    for (const problem of problems) violations.push(`${observed.method} ${observed.path} → ${observed.status}: ${problem}`);
    return;
  }
  exercisedOperations.add(found.key);
  for (const problem of contractProblems(observed, found.operation)) {
    violations.push(`${found.key} (${observed.path}) → ${observed.status}: ${problem}`);
  }
}

/**
 * Wraps the app so that every response it writes is held to the OpenAPI
 * document before it leaves: a status the operation does not declare, or a
 * body its schema refuses, fails the test that made the request.
 */
export function withContractCheck(app: RequestListener): RequestListener {
  return (request: IncomingMessage, response: ServerResponse) => {
    // Express rewrites request.url inside mounted routers; keep what the client asked for.
    const path = pathOf(request.url);
    const chunks: Buffer[] = [];
    const collect = (chunk: unknown, encoding?: unknown): void => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    };
    const write = response.write.bind(response);
    const end = response.end.bind(response);
    response.write = ((chunk: unknown, ...rest: unknown[]) => {
      collect(chunk, rest[0]);
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as ServerResponse['write'];
    response.end = ((chunk?: unknown, ...rest: unknown[]) => {
      collect(chunk, rest[0]);
      const header = response.getHeader('content-type');
      check({
        method: request.method ?? 'GET',
        path,
        status: response.statusCode,
        contentType: typeof header === 'string' ? header : undefined,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      return (end as (...args: unknown[]) => ServerResponse)(chunk, ...rest);
    }) as ServerResponse['end'];
    app(request, response);
  };
}

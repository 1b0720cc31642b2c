import { createDocument, type ZodOpenApiObject } from 'zod-openapi';
import { authPaths } from '../auth/auth.openapi';
import { LOGIN_PATH } from '../auth/login.router';
import { webhookComponents, webhookDefinitions } from './webhook-document';
import { API_OPERATIONS } from '../api-operations';
import { operationPaths } from '../api/operation-document';
import { scopeMeanings } from '../api/scope-table';
import { API_TAGS } from '../api/api-tags';
import { BEARER_SCHEME, OAUTH2_SCHEME } from '../api/operation-parts';
import { paymentIntentLifecycle } from '../payment-intents/payment-intent-lifecycle';
import { errorExamples } from '../platform/document-parts/response-parts';
import { healthPaths } from '../platform/health/health.openapi';
import { docsPaths } from './docs.openapi';

/** The version the spec gives the customer API. */
export const API_VERSION = '1.1.5';

/** The operations grouped by tag, in the order of the tags list (the registry's order is the router's: busiest first). */
export function inReadingOrder<T extends { tag: string }>(operations: readonly T[]): T[] {
  const rank = (tag: string) => API_TAGS.findIndex(({ name }) => name === tag);
  return [...operations].sort((a, b) => rank(a.tag) - rank(b.tag));
}

/**
 * A section of the description that the reference page shows folded, so the
 * operations come first: a summary line, then Markdown (the blank lines let
 * the page render it as Markdown inside the HTML block).
 */
function folded(title: string, body: string): string {
  return `<details><summary><strong>${title}</strong></summary>\n\n${body}\n\n</details>`;
}

const DESCRIPTION = `Keeps records of payors ("customers"), the cards saved to them, the default card per named integration context, and payment intents, for hosted-checkout integrations. The operations follow, grouped by resource; each shows a request sample on the reference page (\`/docs\`), whose samples assume \`BASE\` (this service), \`TOKEN\` and \`LOCATION\` set in the shell.

**Calling it.** (1) Get a token: \`POST ${LOGIN_PATH}\` with your client id and secret (OAuth 2.0 client credentials); locally, \`npm start\` provides the client \`local-dev-client\` / \`local-dev-secret\`. (2) Send it as \`Authorization: Bearer <token>\` with the header \`Platform-Restaurant-External-ID\` naming the location you act for: every record belongs to one location, and records of other locations answer 404. (3) Every answer carries \`X-Request-Id\` (yours, when you send a safe one); quote it to support.

${folded(
  'Names',
  "A name the service compares (a context name, a reference, a fingerprint) is read in Unicode NFC and refuses format characters (Unicode Cf, e.g. U+200B). Patterns list the Basic Multilingual Plane's as explicit ranges, portable to every engine; the service refuses those past it too.",
)}

${folded(
  'Errors',
  'Every non-2xx answer is an `ErrorMessage`, whose `code` comes from the catalog in its schema. Bad input is a 4xx that changes nothing. A full card number anywhere in a request is refused (`CARD_NUMBER_REJECTED`) and never echoed or logged.',
)}

**Scopes.** Each operation's \`security\` names the scope it needs (docs/authentication.md tables them all). A token without the scope: 403 (\`INSUFFICIENT_SCOPE\`) with \`WWW-Authenticate: Bearer error="insufficient_scope", scope="…"\`. A token whose \`locations\` do not include the request's location: 403 (\`LOCATION_NOT_PERMITTED\`). Checks run in this order: token (401), location header (400), location entitlement (403), scope (403), then the request itself; a refused request changes nothing.

${folded(
  'The browser side of a checkout',
  "A checkout page in the browser must not hold a server credential. The backend creates a payment intent for the customer and passes its `sessionSecret` to the page; the page calls the card and default reads (and the intent read), and confirms the intent with one of the cards, with a token holding only `simplified-payments-integration:read` plus the header `Platform-Session-Secret`. The secret is valid only for its intent's customer, only in its location, and only while the intent is live (not SUCCEEDED or CANCELED, younger than 24 hours by default). The backend captures. CORS is allowed on these operations for configured origins only.",
)}

${folded('Payment intent lifecycle', paymentIntentLifecycle())}`;

/** The whole API document, built from the zod schemas the routers validate with. */
export type OpenApiDocument = ReturnType<typeof createDocument>;

export function buildOpenApiDocument(): OpenApiDocument {
  const document: ZodOpenApiObject = {
    openapi: '3.1.0',
    info: {
      title: 'Customer Payment Profiles',
      version: API_VERSION,
      description: DESCRIPTION,
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [
      { url: '/', description: 'This service, in whichever environment serves this document (production, staging or local development)', 'x-internal': false },
    ],
    tags: API_TAGS.map((tag) => ({ ...tag })),
    security: [],
    paths: { ...operationPaths(inReadingOrder(API_OPERATIONS)), ...authPaths, ...healthPaths, ...docsPaths },
    webhooks: webhookDefinitions(),
    components: {
      ...webhookComponents(),
      examples: errorExamples(),
      securitySchemes: {
        [OAUTH2_SCHEME]: {
          type: 'oauth2',
          description:
            'OAuth 2.0 client credentials. Each operation lists the scopes any one of which lets a token call it. The access token is a JWT following RFC8725 (JWT Best Current Practices): signed ES256 or EdDSA only (never `none` or HMAC), `iss`, `aud`, `exp` and `iat` required and checked, at most AUTH_MAX_TOKEN_LIFETIME_SECONDS long-lived; no refresh token (client credentials ask again).',
          flows: { clientCredentials: { tokenUrl: LOGIN_PATH, scopes: scopeMeanings(inReadingOrder(API_OPERATIONS)) } },
        },
        [BEARER_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'An access token from the token endpoint, pasted in; it needs the scopes the operation lists. A JWT following RFC8725 (JWT Best Current Practices): signed ES256 or EdDSA only, `iss`, `aud`, `exp` and `iat` checked, short-lived (TOKEN_TTL_SECONDS).',
        },
      },
    },
  };
  return withoutRepeatedDescriptions(withoutUnusedExamples(withoutFillInExamples(createDocument(document))));
}

/** The catalog's examples the document's answers refer to: an entry no answer can carry (a 405, a timeout) is left out. */
function withoutUnusedExamples<T extends { components?: { examples?: Record<string, unknown> } }>(built: T): T {
  const examples = built.components?.examples;
  if (examples === undefined) return built;
  const text = JSON.stringify({ ...built, components: { ...built.components, examples: {} } });
  for (const name of Object.keys(examples)) if (!text.includes(`"#/components/examples/${name}"`)) delete examples[name];
  return built;
}

interface ParameterObject {
  in?: string;
  required?: boolean;
  description?: string;
  example?: unknown;
  examples?: unknown;
  schema?: { example?: unknown; examples?: unknown; description?: string };
}

/**
 * A parameter's description is said once, on the parameter: the generator
 * also writes it on the parameter's schema, where readers show the same text
 * twice and the document carries it twice.
 */
function withoutRepeatedDescriptions<T extends { paths?: object; components?: { parameters?: object } }>(built: T): T {
  for (const parameter of parametersOf(built)) {
    if (parameter.schema !== undefined && parameter.schema.description === parameter.description) delete parameter.schema.description;
  }
  return built;
}

/** Every parameter of the document: the operations' own and the shared ones. */
function parametersOf(built: { paths?: object; components?: { parameters?: object } }): ParameterObject[] {
  return [
    ...Object.values(built.paths ?? {}).flatMap((item: Record<string, { parameters?: ParameterObject[] }>) =>
      Object.values(item).flatMap((operation) => operation.parameters ?? []),
    ),
    ...(Object.values(built.components?.parameters ?? {}) as ParameterObject[]),
  ];
}

/**
 * A path id, a filter and a cursor carry no example: the reference page's
 * "Try it out" sends a parameter's example as its value, and an example id
 * names no record (404) while an example filter or cursor narrows a list to
 * nothing or is refused (400). The reader fills in the ids of their own
 * records; a list's optional filters start empty. Headers keep theirs.
 */
function withoutFillInExamples<T extends { paths?: object; components?: { parameters?: object } }>(document: T): T {
  // A copy: the generator may share one schema object between a parameter and a body's field, which keeps its example.
  const built = structuredClone(document);
  for (const parameter of parametersOf(built)) {
    if (parameter.in !== 'path' && !(parameter.in === 'query' && parameter.required !== true)) continue;
    delete parameter.example;
    delete parameter.examples;
    if (parameter.schema) {
      delete parameter.schema.example;
      delete parameter.schema.examples;
    }
  }
  return built;
}

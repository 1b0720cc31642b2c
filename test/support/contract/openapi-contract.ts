import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../../../src/docs/openapi-document';
import { onFirstUse } from '../../../src/platform/on-first-use';
import { readRunDocument } from './contract-run';

type Json = Record<string, unknown>;
interface MediaType {
  schema?: Json;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
  $ref?: string;
}
interface Operation {
  responses: Record<string, ResponseObject>;
}
interface ContractDocument {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: { requestBody: { content: Record<string, MediaType> } } }>;
  components: Json;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

/**
 * The service's own OpenAPI document, as the tests hold responses to it:
 * the one this run's global set-up built (contract-run.ts), read on a file's
 * first check, so that not every test file builds it again; built here when
 * the run has none.
 */
export const contractDocument = onFirstUse(() => (readRunDocument() ?? JSON.parse(JSON.stringify(buildOpenApiDocument()))) as ContractDocument);

interface PathTemplate {
  template: string;
  pattern: RegExp;
  /** Literal segments rank above parameters, as Express's routes do. */
  literalSegments: number;
}

const templates = onFirstUse((): PathTemplate[] =>
  Object.keys(contractDocument().paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
    literalSegments: template.split('/').filter((segment) => segment !== '' && !segment.startsWith('{')).length,
  })),
);

/** Every operation the document declares, as `METHOD /path/{template}`. */
export function documentedOperations(): string[] {
  return Object.entries(contractDocument().paths).flatMap(([template, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method) => `${method.toUpperCase()} ${template}`),
  );
}

/** The documented operation a request reached, if any. */
export function operationOf(method: string, path: string): { key: string; template: string; operation: Operation } | undefined {
  const lower = method.toLowerCase();
  const { paths } = contractDocument();
  const candidates = templates()
    .filter(({ template, pattern }) => pattern.test(path) && paths[template]?.[lower] !== undefined)
    .sort((a, b) => b.literalSegments - a.literalSegments);
  const best = candidates[0];
  if (best === undefined) return undefined;
  const operation = paths[best.template]?.[lower] as Operation;
  return { key: `${method.toUpperCase()} ${best.template}`, template: best.template, operation };
}

const ajv = onFirstUse(() => {
  const instance = new Ajv2020({ strict: false, allErrors: true });
  addFormats(instance);
  instance.addSchema({ $id: 'openapi', components: contractDocument().components });
  return instance;
});

const compiled = new Map<Json, ValidateFunction>();
function validatorFor(schema: Json): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    // Local references point into the document's components.
    const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')) as Json;
    validate = ajv().compile(rebased);
    compiled.set(schema, validate);
  }
  return validate;
}

export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  contentType: string | undefined;
  body: string;
}

/** A response declared once (`components.responses`) and referred to, as it is declared. */
function resolved(response: ResponseObject | undefined): ResponseObject | undefined {
  const name = response?.$ref?.replace('#/components/responses/', '');
  if (name === undefined) return response;
  const target = (contractDocument().components.responses as Record<string, ResponseObject> | undefined)?.[name];
  if (target === undefined) throw new Error(`the document refers to a response it does not declare: ${String(response?.$ref)}`);
  return target;
}

/** What is wrong with a response, by the document; empty when nothing is. */
export function contractProblems(observed: ObservedResponse, operation: Operation): string[] {
  const declared = resolved(operation.responses[String(observed.status)] ?? operation.responses.default);
  if (declared === undefined) {
    return [`status ${observed.status} is not declared (declared: ${Object.keys(operation.responses).join(', ')})`];
  }
  const media = declared.content;
  if (media === undefined || Object.keys(media).length === 0) {
    return observed.body.length === 0 ? [] : ['a body was sent where the document declares none'];
  }
  const mediaType = observed.contentType?.split(';')[0]?.trim().toLowerCase();
  const entry = mediaType === undefined ? undefined : media[mediaType];
  if (entry === undefined) return [`content type ${mediaType ?? '(none)'} is not declared (declared: ${Object.keys(media).join(', ')})`];
  if (entry.schema === undefined) return [];
  let value: unknown = observed.body;
  if (mediaType === 'application/json') {
    try {
      value = JSON.parse(observed.body);
    } catch {
      return ['the body is not JSON'];
    }
  }
  const validate = validatorFor(entry.schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => `body${error.instancePath} ${error.message ?? 'is invalid'} ${JSON.stringify(error.params)}`);
}

/** The ErrorMessage schema alone, for answers of paths the document does not have. */
export function errorMessageProblems(observed: ObservedResponse): string[] {
  const errorOnly: Operation = {
    responses: { default: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorMessage' } } } } },
  };
  return contractProblems(observed, errorOnly);
}

/** What is wrong with a webhook delivery's body, by the document's `webhooks` entry for its event type; empty when nothing is. */
export function webhookPayloadProblems(body: string): string[] {
  const event = JSON.parse(body) as { type?: string };
  const webhook = contractDocument().webhooks[event.type ?? ''];
  if (webhook === undefined) return [`the document declares no webhook ${String(event.type)}`];
  const validate = validatorFor(webhook.post.requestBody.content['application/json']?.schema as Json);
  if (validate(event)) return [];
  return (validate.errors ?? []).map((error) => `body${error.instancePath} ${error.message ?? 'is invalid'} ${JSON.stringify(error.params)}`);
}

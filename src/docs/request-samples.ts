import type { OpenApiDocument } from './openapi-document';

/**
 * A request sample per operation, for the reference page: the call as curl
 * and as the typed client (clients/typescript), written from the document
 * the declarations render, so a sample names the operation's real path,
 * headers and example body. The shell samples assume BASE, TOKEN and
 * LOCATION; the client's, a `client` and a `location` (the client's README).
 */
export interface RequestSample {
  curl: string;
  client: string;
}

type Json = Record<string, unknown>;

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
}

interface OperationObject {
  operationId?: string;
  description?: string;
  security?: unknown[];
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { content?: Record<string, { schema?: Json }> };
}

const LOCATION_HEADER = 'Platform-Restaurant-External-ID';

function resolve<T>(document: OpenApiDocument, value: T | { $ref: string }): T {
  if (typeof value !== 'object' || value === null || !('$ref' in value)) return value;
  const found = value.$ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], document);
  return found as T;
}

/** `{id}` after `/customers` is CUSTOMER_ID; `{paymentMethodId}` is PAYMENT_METHOD_ID. */
function pathVariable(path: string, name: string): string {
  if (name !== 'id') return name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
  const segments = path.split('/');
  const resource = segments[segments.indexOf(`{${name}}`) - 1] ?? 'record';
  return `${resource.replace(/s$/, '').replaceAll('-', '_').toUpperCase()}_ID`;
}

/** CUSTOMER_ID as the client's customerId. */
function camel(variable: string): string {
  return variable.toLowerCase().replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/** `id: customerId`, or `paymentMethodId` alone where the variable has the parameter's name. */
function pathArgument(path: string, name: string): string {
  const variable = camel(pathVariable(path, name));
  return variable === name ? name : `${name}: ${variable}`;
}

/** A body's example, or its required fields with placeholders when its schema has none. */
function exampleBody(document: OpenApiDocument, operation: OperationObject): unknown {
  const content = operation.requestBody?.content;
  if (content === undefined) return undefined;
  const media = content['application/json'] ?? content['*/*'] ?? Object.values(content)[0];
  const schema = resolve<Json>(document, media?.schema ?? {});
  if (schema.example !== undefined) return schema.example;
  const required = (schema.required as string[] | undefined) ?? [];
  return Object.fromEntries(required.map((field) => [field, `<${field}>`]));
}

function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export function requestSample(document: OpenApiDocument, path: string, method: string, operation: OperationObject): RequestSample {
  const parameters = (operation.parameters ?? []).map((parameter) => resolve<Parameter>(document, parameter));
  const located = parameters.some((parameter) => parameter.in === 'header' && parameter.name === LOCATION_HEADER);
  const pathParameters = parameters.filter((parameter) => parameter.in === 'path');
  const secured = (operation.security ?? document.security ?? []).length > 0;
  const body = exampleBody(document, operation);

  const shellPath = pathParameters.reduce((text, { name }) => text.replace(`{${name}}`, `$${pathVariable(path, name)}`), path);
  const curl = [
    `curl -X ${method.toUpperCase()} "$BASE${shellPath}"`,
    ...(secured ? ['-H "Authorization: Bearer $TOKEN"'] : []),
    ...(located ? [`-H "${LOCATION_HEADER}: $LOCATION"`] : []),
    ...(body === undefined ? [] : ["-H 'Content-Type: application/json'", `-d ${shellQuoted(JSON.stringify(body))}`]),
  ].join(' \\\n  ');

  const params = [
    ...(located ? ['header: locationHeaders(location)'] : []),
    ...(pathParameters.length > 0 ? [`path: { ${pathParameters.map(({ name }) => pathArgument(path, name)).join(', ')} }`] : []),
  ];
  const options = [
    ...(params.length > 0 ? [`  params: { ${params.join(', ')} },`] : []),
    ...(body === undefined ? [] : [`  body: ${JSON.stringify(body, null, 2).replaceAll('\n', '\n  ')},`]),
  ];
  const call = `client.${method.toUpperCase()}('${path}'`;
  const client = `const { data, error } = await ${options.length === 0 ? `${call});` : `${call}, {\n${options.join('\n')}\n});`}`;
  return { curl, client };
}

/**
 * The document as the reference page shows it: each operation's description
 * followed by its request sample. The committed and served document
 * (/openapi.json) stays without them, as tools read it.
 */
export function documentWithSamples(document: OpenApiDocument): OpenApiDocument {
  const shown = structuredClone(document);
  for (const [path, item] of Object.entries(shown.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, OperationObject>)) {
      if (typeof operation !== 'object' || operation.operationId === undefined) continue;
      const sample = requestSample(document, path, method, operation);
      const before = operation.description === undefined ? '' : `${operation.description}\n\n`;
      operation.description = `${before}**Request sample**\n\n\`\`\`sh\n${sample.curl}\n\`\`\`\n\n\`\`\`ts\n${sample.client}\n\`\`\``;
    }
  }
  return shown;
}

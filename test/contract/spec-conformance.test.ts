import { contractDocument } from '../support/contract/openapi-contract';

/**
 * ../shared/spec/customer-payment-profiles.md, field for field: each schema's
 * fields with the JSON type (and format) the spec gives them, and each of its
 * six operations with the statuses, headers and scopes it lists.
 */
const SPEC_SCHEMAS: Record<string, Record<string, string>> = {
  CreateCustomerRequest: { externalReferenceId: 'string', description: 'string' },
  CustomerResponse: { id: 'string/uuid', externalReferenceId: 'string', description: 'string' },
  CustomerPaymentMethodsResponse: { results: 'integer/int32', paymentMethods: 'array' },
  PaymentMethodData: {
    id: 'string',
    type: 'string',
    cardType: 'string',
    lastFour: 'string',
    month: 'string',
    year: 'string',
    card: 'object',
    // Added for cards in the order a payor uses them (Hyperswitch's last_used_at).
    lastUsedAt: 'string',
  },
  Card: { lastFour: 'string', expiry: 'object', type: 'string' },
  Expiry: { month: 'string', year: 'string' },
  SetDefaultPaymentMethodRequest: { paymentMethodId: 'string/uuid', contextName: 'string' },
  DefaultPaymentMethodResponse: { paymentMethodId: 'string/uuid', contextName: 'string' },
  PaymentIntent: {
    id: 'string/uuid',
    externalReferenceId: 'string',
    sessionSecret: 'string',
    amount: 'integer',
    currency: 'string',
    captureMethod: 'string',
    status: 'string',
    creationDate: 'string',
    customerId: 'string/uuid',
    amountDetails: 'object',
    email: 'string',
    paymentMethodConfigurationDetails: 'object',
    standingInstructionType: 'string',
    offSession: 'boolean',
    // "null or object"; the object's shape is issue 22's (Payment).
    latestPayment: 'object',
    mandateId: 'string',
    // Added by the checkout's lifecycle (issue 22): why a payment failed, why
    // the intent was canceled, and the card attached or paid with.
    lastPaymentError: 'object',
    cancellationReason: 'string',
    paymentMethodId: 'string/uuid',
    // Added by refunds (Stripe's and Adyen's model): what was captured, refunded and is left to refund.
    amountCaptured: 'integer/int32',
    amountRefunded: 'integer/int32',
    refundableAmount: 'integer/int32',
    // Added by disputes: what chargebacks hold of the captured amount, and the status of the dispute moved last.
    amountDisputed: 'integer/int32',
    disputeStatus: 'string',
    // Added by partial authorization: Toast's option, and this service's own record of what was asked.
    paymentMethodOptions: 'object',
    amountRequested: 'integer/int32',
    // Added by cards on file: the integration context whose default card pays when a confirm names none.
    contextName: 'string',
  },
  ErrorMessage: {
    status: 'integer/int32',
    code: 'integer/int32',
    message: 'string',
    messageKey: 'string',
    fieldName: 'string',
    link: 'string',
    requestId: 'string',
    developerMessage: 'string',
    errors: 'array',
  },
};

const SPEC_CARD_TYPES = ['Visa', 'Mastercard', 'Amex', 'Discover', 'JCB', 'Diners', 'Citi', 'Maestro', 'Laser', 'Solo', 'Interac', 'Eftpos', 'Unknown'];

interface SpecOperation {
  method: 'get' | 'post' | 'delete';
  path: string;
  statuses: string[];
  scopes: string[];
  sessionSecretHeader: boolean;
  requestBody?: { mediaType: string; schema: string; required: boolean };
  okSchema: string;
}

const SPEC_OPERATIONS: SpecOperation[] = [
  {
    method: 'post',
    path: '/v1/customers',
    statuses: ['200', '400', '401', '500'],
    scopes: ['spi.customers:write'],
    sessionSecretHeader: false,
    requestBody: { mediaType: '*/*', schema: 'CreateCustomerRequest', required: false },
    okSchema: 'CustomerResponse',
  },
  {
    method: 'get',
    path: '/v1/customers/{id}/payment-methods',
    statuses: ['200', '404', '500'],
    scopes: ['spi.customers:read', 'simplified-payments-integration:read'],
    sessionSecretHeader: true,
    okSchema: 'CustomerPaymentMethodsResponse',
  },
  {
    method: 'post',
    path: '/v1/customers/{id}/payment-methods/defaults',
    statuses: ['200', '400', '404', '500'],
    scopes: ['simplified-payments-integration.server:write'],
    sessionSecretHeader: false,
    requestBody: { mediaType: 'application/json', schema: 'SetDefaultPaymentMethodRequest', required: true },
    okSchema: 'DefaultPaymentMethodResponse',
  },
  {
    method: 'get',
    path: '/v1/customers/{id}/payment-methods/defaults/{contextName}',
    statuses: ['200', '404', '500'],
    scopes: ['spi.customers:read', 'simplified-payments-integration:read'],
    sessionSecretHeader: true,
    okSchema: 'DefaultPaymentMethodResponse',
  },
  {
    method: 'delete',
    path: '/v1/customers/{id}/payment-methods/defaults/{contextName}',
    statuses: ['200', '404', '500'],
    scopes: ['simplified-payments-integration.server:write'],
    sessionSecretHeader: false,
    okSchema: 'DefaultPaymentMethodResponse',
  },
  {
    method: 'get',
    path: '/v1/payment-intents/{id}',
    statuses: ['200', '400', '500'],
    // The spec leaves this scope "not shown"; the service's choice is documented on the operation.
    scopes: ['simplified-payments-integration.server:write'],
    sessionSecretHeader: true,
    okSchema: 'PaymentIntent',
  },
];

type Schema = {
  type?: string | string[];
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  anyOf?: Schema[];
  $ref?: string;
  items?: Schema;
};
type Parameter = { in: string; name: string; required?: boolean };
type Response = { content?: Record<string, { schema: Schema }> };
type Operation = {
  parameters?: Array<Parameter | { $ref: string }>;
  security?: Array<Record<string, string[]>>;
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, Response | { $ref: string }>;
};

const components = contractDocument().components as {
  schemas: Record<string, Schema>;
  parameters: Record<string, Parameter>;
  responses: Record<string, Response>;
};
const schemas = components.schemas;

/** A parameter or answer as declared: once in the components when the operation refers to it. */
const named = (ref: string) => ref.split('/').pop() as string;
const declaredParameter = (parameter: Parameter | { $ref: string }): Parameter =>
  '$ref' in parameter ? (components.parameters[named(parameter.$ref)] as Parameter) : parameter;
const declaredResponse = (response: Response | { $ref: string } | undefined): Response | undefined =>
  response !== undefined && '$ref' in response ? components.responses[named(response.$ref)] : response;

function resolve(schema: Schema): Schema {
  return schema.$ref === undefined ? schema : resolve(schemas[schema.$ref.replace('#/components/schemas/', '')] ?? {});
}

/** The JSON types a property may take, nulls aside, with its format. */
function typeOf(schema: Schema): string {
  const resolved = resolve(schema);
  const variants = resolved.anyOf?.map(resolve) ?? [resolved];
  const types = variants.flatMap((variant) => (Array.isArray(variant.type) ? variant.type : [variant.type ?? (variant.$ref ? 'object' : '')]));
  const nonNull = types.filter((type) => type !== 'null');
  const type = nonNull.length === 0 ? 'null' : nonNull.join('|');
  const format = variants.find((variant) => variant.format !== undefined)?.format;
  return format === undefined ? type : `${type}/${format}`;
}

describe('the OpenAPI document against the spec', () => {
  it.each(Object.entries(SPEC_SCHEMAS))('%s has exactly the spec’s fields, with its types', (name, fields) => {
    const schema = schemas[name];
    expect(schema).toBeDefined();
    expect(Object.keys(schema?.properties ?? {}).sort()).toEqual(Object.keys(fields).sort());
    for (const [field, expected] of Object.entries(fields)) {
      const actual = typeOf(schema?.properties?.[field] ?? {});
      expect(`${field}: ${expected.includes('/') ? actual : actual.split('/')[0]}`).toBe(`${field}: ${expected}`);
    }
  });

  it('requires both fields of SetDefaultPaymentMethodRequest and none of CreateCustomerRequest', () => {
    expect(schemas.SetDefaultPaymentMethodRequest?.required?.sort()).toEqual(['contextName', 'paymentMethodId']);
    expect(schemas.CreateCustomerRequest?.required ?? []).toEqual([]);
  });

  it('enumerates exactly the spec’s card brands', () => {
    expect(resolve(schemas.PaymentMethodData?.properties?.cardType ?? {}).enum).toEqual(SPEC_CARD_TYPES);
  });

  it('carries amountDetails.tip and paymentMethodConfigurationDetails.id as the spec shapes them', () => {
    const intent = schemas.PaymentIntent?.properties ?? {};
    // The spec says integer and names no format; the document adds int32 (issue 36, item 9), as it does for every field the spec types `integer`.
    expect(typeOf(resolve(intent.amountDetails ?? {}).properties?.tip ?? {})).toBe('integer/int32');
    const configuration = resolve(intent.paymentMethodConfigurationDetails ?? {});
    const objectVariant = configuration.anyOf?.map(resolve).find((variant) => variant.type === 'object') ?? configuration;
    expect(typeOf(objectVariant.properties?.id ?? {})).toBe('string/uuid');
  });

  it.each(SPEC_OPERATIONS)('$method $path: statuses, headers, scopes and bodies as the spec lists them', (spec) => {
    const operation = (contractDocument().paths[spec.path] as Record<string, Operation> | undefined)?.[spec.method];
    expect(operation).toBeDefined();
    if (operation === undefined) return;

    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(spec.statuses));
    for (const status of Object.keys(operation.responses).filter((code) => code >= '400')) {
      expect(declaredResponse(operation.responses[status])?.content?.['application/json']?.schema.$ref).toBe('#/components/schemas/ErrorMessage');
    }
    expect(declaredResponse(operation.responses['200'])?.content?.['application/json']?.schema.$ref).toBe(`#/components/schemas/${spec.okSchema}`);

    const headers = (operation.parameters ?? []).map(declaredParameter).filter((parameter) => parameter.in === 'header');
    expect(headers.find((header) => header.name === 'Platform-Restaurant-External-ID')?.required).toBe(true);
    const sessionSecret = headers.find((header) => header.name === 'Platform-Session-Secret');
    expect(sessionSecret === undefined ? 'absent' : sessionSecret.required === true ? 'required' : 'optional').toBe(
      spec.sessionSecretHeader ? 'optional' : 'absent',
    );

    const oauthScopes = (operation.security ?? []).flatMap((requirement) => requirement.OAuth2 ?? []);
    expect(oauthScopes).toEqual(expect.arrayContaining(spec.scopes));

    if (spec.requestBody === undefined) {
      expect(operation.requestBody).toBeUndefined();
    } else {
      expect(operation.requestBody?.required ?? false).toBe(spec.requestBody.required);
      expect(operation.requestBody?.content[spec.requestBody.mediaType]?.schema.$ref).toBe(`#/components/schemas/${spec.requestBody.schema}`);
    }
  });

  it("is version 1.1.5 and declares the OAuth2 client-credentials flow with its token address, the spec's four scopes and the service's own four (events, webhooks, reports, location settings)", () => {
    const document = contractDocument() as unknown as {
      openapi: string;
      info: { version: string };
      components: { securitySchemes: Record<string, { type: string; flows?: { clientCredentials?: { tokenUrl: string; scopes: Record<string, string> } } }> };
    };
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.1.5');
    const flow = document.components.securitySchemes.OAuth2?.flows?.clientCredentials;
    expect(flow?.tokenUrl).toBe('/authentication/v1/authentication/login');
    expect(Object.keys(flow?.scopes ?? {}).sort()).toEqual([
      'simplified-payments-integration.server:write',
      'simplified-payments-integration:read',
      'spi.customers:read',
      'spi.customers:write',
      'spi.events:read',
      'spi.location-settings:write',
      'spi.reports:read',
      'spi.webhooks:write',
    ]);
  });

  it('starts every operation of the API with /v1, as the spec’s versioning says', () => {
    const apiPaths = Object.keys(contractDocument().paths).filter(
      (path) => !/^\/(authentication|\.well-known|openapi|health|docs)\//.test(path) && !/^\/openapi\./.test(path),
    );
    expect(apiPaths.length).toBeGreaterThan(0);
    expect(apiPaths.filter((path) => !path.startsWith('/v1/'))).toEqual([]);
  });
});

import { z } from 'zod';
import { int32 } from '../validation/int32';
import { ERROR_CATALOG, type ErrorCode } from './error-catalog';
import { ERROR_DOCS_PATH } from './error-docs';

/** The most nested errors an ErrorMessage lists (a body with hundreds of unknown fields says the first hundred). */
export const MAX_NESTED_ERRORS = 100;

const CATALOG_ENTRIES = Object.entries(ERROR_CATALOG) as Array<[ErrorCode, (typeof ERROR_CATALOG)[ErrorCode]]>;

const errorCodes = CATALOG_ENTRIES.map(([, entry]) => entry.code).sort((a, b) => a - b);
const errorKeys = CATALOG_ENTRIES.map(([key]) => key);

/** The fields of an ErrorMessage, nested errors aside. */
const errorMessageFields = {
  status: int32(400, 599).meta({ description: 'HTTP status of the response.' }),
  code: z.literal(errorCodes as [number, ...number[]]).meta({
    override: { type: 'integer', format: 'int32', minimum: Math.min(...errorCodes), maximum: Math.max(...errorCodes) },
    // The catalog itself is served once (its page, which every answer's `link` points into), not written into the document again.
    description: `Numeric identifier of the error condition. Numbers are grouped by family (1xxx request, 2xxx not found, 3xxx conflict, 4xxx authentication and authorization, 5xxx server) and never reused. Each code with its HTTP status, messageKey and meaning: the served page ${ERROR_DOCS_PATH}; each operation's error answers show the codes it can carry, one example each.`,
  }),
  message: z.string().meta({ description: 'Description of the error, for a developer; never carries a submitted value.' }),
  messageKey: z.enum(errorKeys as [ErrorCode, ...ErrorCode[]]).meta({
    description: 'Stable name of the error condition, e.g. CUSTOMER_NOT_FOUND: the catalog key of `code`.',
  }),
  fieldName: z.string().optional().meta({ description: 'The request field (or header) at fault, when exactly one is, as a dotted path.' }),
  link: z
    .string()
    .optional()
    .meta({
      description: `Where the condition is explained: its entry on the served page ${ERROR_DOCS_PATH}, relative to this service.`,
      example: `${ERROR_DOCS_PATH}#CUSTOMER_NOT_FOUND`,
    }),
  requestId: z.string().meta({ description: "Identifier of the client's HTTP request (also the X-Request-Id response header)." }),
  developerMessage: z.string().optional().meta({ description: 'Additional detail, if available.' }),
};

/**
 * One entry of an ErrorMessage's `errors`: an ErrorMessage without nested
 * errors of its own. Nesting stops at one level, so the document has no
 * recursive schema for client generators that cannot follow one.
 */
const nestedErrorSchema = z
  .strictObject({
    ...errorMessageFields,
    code: z.literal(errorCodes as [number, ...number[]]).meta({
      override: { type: 'integer', format: 'int32', minimum: Math.min(...errorCodes), maximum: Math.max(...errorCodes) },
      description: 'Numeric identifier of the error condition: the catalog of ErrorMessage.code.',
    }),
  })
  .meta({ id: 'NestedErrorMessage' });

/**
 * The spec's ErrorMessage: the body of every non-2xx answer. `code` and
 * `messageKey` come from one catalog, so an uncatalogued value fails the
 * document's schema.
 */
export const errorMessageSchema = z
  .strictObject({
    ...errorMessageFields,
    errors: z
      .array(nestedErrorSchema)
      .max(MAX_NESTED_ERRORS)
      .optional()
      .meta({ description: `Nested errors: one entry per field at fault, when several are (the first ${MAX_NESTED_ERRORS}).` }),
  })
  .meta({
    id: 'ErrorMessage',
    example: {
      status: 404,
      code: 2001,
      message: 'The customer record does not exist.',
      messageKey: 'CUSTOMER_NOT_FOUND',
      link: `${ERROR_DOCS_PATH}#CUSTOMER_NOT_FOUND`,
      requestId: '7c1f4b52-2d4e-4f0a-9a51-0f3c2b1d5e6a',
    },
  });

export type ErrorMessage = z.infer<typeof errorMessageSchema>;

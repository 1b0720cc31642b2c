import { z } from 'zod';

/** The body of a nested error in `errors[]`: one field's problem. */
export const nestedErrorMessageSchema = z
  .strictObject({
    status: z.int().meta({ description: 'HTTP status of the response.' }),
    code: z.int().meta({ description: 'Numeric identifier of the error condition.' }),
    message: z.string().meta({ description: 'Description of the error.' }),
    messageKey: z.string().meta({ description: 'Stable name of the error condition, e.g. VALIDATION_FAILED.' }),
    fieldName: z.string().optional().meta({ description: 'Dotted path of the request field at fault.' }),
  })
  .meta({ id: 'NestedErrorMessage' });

/** The spec's ErrorMessage: the body of every non-2xx answer. */
export const errorMessageSchema = z
  .strictObject({
    status: z.int().meta({ description: 'HTTP status of the response.' }),
    code: z.int().meta({ description: 'Numeric identifier of the error condition (see the catalog).' }),
    message: z.string().meta({ description: 'Description of the error.' }),
    messageKey: z.string().meta({ description: 'Stable name of the error condition, e.g. CUSTOMER_NOT_FOUND.' }),
    fieldName: z.string().optional().meta({ description: 'The request field at fault, when exactly one is.' }),
    link: z.string().optional().meta({ description: 'Reserved for future use.' }),
    requestId: z.string().meta({ description: "Identifier of the client's HTTP request (the X-Request-Id header)." }),
    developerMessage: z.string().optional().meta({ description: 'Additional detail, if available.' }),
    errors: z.array(nestedErrorMessageSchema).optional().meta({ description: 'One entry per field at fault.' }),
  })
  .meta({ id: 'ErrorMessage' });

export type ErrorMessage = z.infer<typeof errorMessageSchema>;

import type { ErrorCode } from './error-catalog';

/** One field's problem, named by its dotted path in the request (`card.expiry.month`). */
export interface FieldProblem {
  fieldName: string;
  message: string;
}

/**
 * What services and middleware throw. It names a condition from the catalog and
 * never an HTTP status: the error handler owns that mapping.
 */
export class DomainError extends Error {
  override readonly name = 'DomainError';

  constructor(
    readonly errorCode: ErrorCode,
    readonly details: ErrorDetails = {},
  ) {
    super(details.message ?? errorCode);
  }
}

export interface ErrorDetails {
  message?: string;
  fieldName?: string;
  problems?: FieldProblem[];
  /** Response headers the condition calls for, e.g. WWW-Authenticate or Retry-After. */
  headers?: Record<string, string>;
}

import { ERROR_CATALOG, type ErrorCode } from './error-catalog';
import type { FieldProblem } from './domain-error';
import { errorDocsLink } from './error-docs';
import { MAX_NESTED_ERRORS, type ErrorMessage } from './error-message.schemas';

/** Builds the spec's ErrorMessage for a catalogued condition. */
export function toErrorMessage(
  errorCode: ErrorCode,
  requestId: string,
  details: { message?: string; fieldName?: string; problems?: FieldProblem[] } = {},
): ErrorMessage {
  const entry = ERROR_CATALOG[errorCode];
  const problems = details.problems ?? [];
  // A single field at fault is named at the top level (even with several
  // problems, e.g. a number both fractional and too big); problems go in errors[].
  const faultyFields = new Set(problems.map((problem) => problem.fieldName));
  const fieldName = details.fieldName ?? (faultyFields.size === 1 ? problems[0]?.fieldName : undefined);
  const message = details.message ?? (problems.length === 1 ? problems[0]?.message : undefined) ?? entry.message;
  const link = errorDocsLink(errorCode);
  return {
    status: entry.status,
    code: entry.code,
    message,
    messageKey: errorCode,
    ...(fieldName === undefined ? {} : { fieldName }),
    link,
    requestId,
    ...(problems.length > 1
      ? {
          errors: problems.slice(0, MAX_NESTED_ERRORS).map((problem) => ({
            status: entry.status,
            code: entry.code,
            message: problem.message,
            messageKey: errorCode,
            fieldName: problem.fieldName,
            link,
            requestId,
          })),
        }
      : {}),
  };
}

import type { ErrorCode } from './error-catalog';

/** The served page that explains every catalogued error, one anchor per messageKey (src/docs/error-catalog-page.ts). */
export const ERROR_DOCS_PATH = '/docs/errors';

/** An ErrorMessage's `link`: its condition's entry on the served page, relative to the service. */
export function errorDocsLink(errorCode: ErrorCode): string {
  return `${ERROR_DOCS_PATH}#${errorCode}`;
}

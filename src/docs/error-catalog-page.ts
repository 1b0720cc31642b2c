import { ERROR_CATALOG, type ErrorCode } from '../platform/errors/error-catalog';

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The catalog, by code. */
function byCode(): Array<[ErrorCode, (typeof ERROR_CATALOG)[ErrorCode]]> {
  return (Object.entries(ERROR_CATALOG) as Array<[ErrorCode, (typeof ERROR_CATALOG)[ErrorCode]]>).sort(([, a], [, b]) => a.code - b.code);
}

/** The catalog as Markdown, for docs/errors.md (`npm run openapi` writes it there). */
export function errorCatalogTable(): string {
  return [
    '| code | status | messageKey | Meaning |',
    '|---|---|---|---|',
    ...byCode().map(([key, entry]) => `| ${entry.code} | ${entry.status} | \`${key}\` | ${entry.message.replace(/\|/g, '\\|')} |`),
  ].join('\n');
}

/**
 * The page every ErrorMessage's `link` points into: one row per catalogued
 * condition, its anchor the messageKey (`/docs/errors#CUSTOMER_NOT_FOUND`).
 * Static HTML with no script, so it needs nothing the docs page's content
 * security policy would refuse.
 */
export function errorCatalogPage(): string {
  const rows = byCode().map(
    ([key, entry]) =>
      `      <tr id="${key}"><td><a href="#${key}">${entry.code}</a></td><td>${entry.status}</td><td><code>${key}</code></td><td>${escapeHtml(entry.message)}</td></tr>`,
  );
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Customer Payment Profiles API: errors</title>
    <style>body { font-family: sans-serif; margin: 2em; } td, th { padding: 0.3em 0.8em; text-align: left; vertical-align: top; } tr:target { background: #fff3b0; }</style>
  </head>
  <body>
    <h1>Errors</h1>
    <p>Every non-2xx answer is an <code>ErrorMessage</code>. Programs read <code>messageKey</code> (stable); <code>message</code> is for people; <code>link</code> points to the row below. The whole API is described at <a href="/docs/">/docs</a>.</p>
    <table>
      <tr><th>code</th><th>HTTP status</th><th>messageKey</th><th>meaning</th></tr>
${rows.join('\n')}
    </table>
  </body>
</html>
`;
}

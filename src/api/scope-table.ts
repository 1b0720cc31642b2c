import { SCOPE, SCOPES, type Scope } from '../auth/scopes';
import type { Access } from './access';
import type { Operation } from './operation';

/** What a session secret must belong to, by the grant's field it is matched on. */
const SESSION_SECRET_BELONGS_TO: Record<NonNullable<Access['sessionSecret']>['is'], string> = {
  customerId: 'a live payment or setup intent for that customer',
  intentId: 'that intent itself, while it is live',
  setupIntentId: 'that setup intent itself, while it is live',
};

function accessText(access: Access): string {
  const scope = `\`${access.scope}\``;
  if (access.sessionSecret === undefined) return scope;
  return `${scope}; or \`simplified-payments-integration:read\` with the \`Platform-Session-Secret\` of ${SESSION_SECRET_BELONGS_TO[access.sessionSecret.is]} (else 401, \`SESSION_SECRET_INVALID\`)`;
}

/**
 * Who may call each /v1 operation, as a Markdown table: the document's
 * description and docs/authentication.md carry it, both rendered from the declarations.
 */
export function scopeTable(operations: readonly Operation<never>[]): string {
  return [
    '| Operation | Scope |',
    '|---|---|',
    ...operations.map(
      (operation) => `| \`${operation.method.toUpperCase()} ${operation.path}\` (${operation.operationId}) | ${accessText(operation.access)} |`,
    ),
  ].join('\n');
}

/**
 * What each scope grants, for the document's OAuth2 flow: the summaries of
 * the operations it lets a client call, from their declarations; the browser
 * side's read scope, the operations it opens with a live session secret.
 */
export function scopeMeanings(operations: readonly Operation<never>[]): Record<Scope, string> {
  const granted = (scope: Scope) =>
    operations
      .filter((operation) => operation.access.scope === scope || (scope === SCOPE.integrationRead && operation.access.sessionSecret !== undefined))
      .map((operation) => operation.summary);
  return Object.fromEntries(
    SCOPES.map((scope) => {
      const summaries = granted(scope).join('; ');
      return [scope, scope === SCOPE.integrationRead ? `With a live Platform-Session-Secret only: ${summaries}.` : `${summaries}.`];
    }),
  ) as Record<Scope, string>;
}

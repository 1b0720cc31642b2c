/**
 * The import rules `npm run lint:imports` holds the code to: the layers go
 * platform/ (what every feature shares) → auth/, idempotency/ → api/ (how an
 * operation is declared and served) → the features → api-operations.ts (the
 * registry), docs/, app.ts and server.ts, and nothing imports back up. No
 * file takes part in an import circle. Type-only imports count too.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: the modules load in an order that depends on who is imported first.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-imports-only-platform',
      severity: 'error',
      comment: 'platform/ is the bottom layer: it must not import auth/, idempotency/, api/, a feature, app.ts or server.ts.',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/platform/' },
    },
    {
      name: 'auth-and-idempotency-import-only-below',
      severity: 'error',
      comment: 'auth/ and idempotency/ sit on platform/ alone: they must not import api/, a feature, or anything above.',
      from: { path: '^src/(auth|idempotency)/' },
      to: { path: '^src/', pathNot: '^src/(platform|auth|idempotency)/' },
    },
    {
      name: 'api-imports-no-feature',
      severity: 'error',
      comment: 'api/ declares and serves operations for every feature: it must not import one, nor the registry above it.',
      from: { path: '^src/api/' },
      to: { path: '^src/', pathNot: '^src/(platform|auth|idempotency|api)/' },
    },
    {
      name: 'features-import-no-registry-or-app',
      severity: 'error',
      comment: 'A feature declares its own operations; the registry, the document, app.ts and server.ts assemble them.',
      from: { path: '^src/(customers|payment-methods|payment-intents|events|webhooks)/' },
      to: { path: '^src/(api-operations|app|server)\\.ts$|^src/docs/' },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^clients/typescript/src/api-types\\.ts$' },
  },
};

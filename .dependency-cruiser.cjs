/**
 * The import rules `npm run lint:imports` holds the code to (issue 18): the
 * layers go platform/ (what every feature shares) → auth/, idempotency/ →
 * api/ → the features → app.ts and server.ts, and nothing imports back up,
 * so platform/ imports nothing of the service but platform/. No file takes
 * part in an import circle. Type-only imports count too.
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
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/client/api-types\\.ts$' },
  },
};

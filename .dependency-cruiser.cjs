/**
 * The import rules `npm run lint:imports` holds the code to. The layers,
 * bottom up, and nothing imports back up:
 *
 *   platform/            what everything shares (database, HTTP, errors, config)
 *   change-log/          the events every write records, their outbox, erasure and retention
 *   auth/, idempotency/, payment-processor/
 *   api/                 how an operation is declared and served
 *   the features         customers, payment-methods, payment-intents, events, webhooks
 *   flows/               work that spans features (customer erasure, the checkout, refunds, the sandbox clock)
 *   modules.ts, api-operations.ts, docs/, app.ts, server.ts: the assembly
 *
 * Features stay apart: one reaches another only through that feature's
 * index.ts, and only a feature below it in FEATURE_ORDER, so no two features
 * import each other. No file takes part in an import circle. Type-only
 * imports count too. test/unit/tooling/import-rules.test.ts shows each rule failing.
 * @type {import('dependency-cruiser').IConfiguration}
 */

/**
 * The features and flows and what each feature may reach (through its
 * index.ts), read from the one list of modules (src/modules.ts: each
 * module's folder, layer and reaches), so a module added there is held to
 * these rules at once. Loaded through tsx, as the sources are TypeScript.
 */
const { require: requireTypeScript } = require('tsx/cjs/api');
const { MODULES } = requireTypeScript('./src/modules.ts', __filename);
const FEATURE_ORDER = Object.fromEntries(MODULES.filter((module) => module.layer === 'feature').map((module) => [module.folder, [...(module.reaches ?? [])]]));
const FEATURES = Object.keys(FEATURE_ORDER);
const anyFeature = `^src/(${FEATURES.join('|')})/`;
/** Everything below the flows: what must not import one. */
const BELOW_FLOWS = ['platform', 'change-log', 'auth', 'idempotency', 'payment-processor', 'api', ...FEATURES];

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
      comment: 'platform/ is the bottom layer: it must not import anything above it.',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/platform/' },
    },
    {
      name: 'change-log-imports-only-platform',
      severity: 'error',
      comment: 'change-log/ sits on platform/ alone: every feature records through it, so it must know none of them.',
      from: { path: '^src/change-log/' },
      to: { path: '^src/', pathNot: '^src/(platform|change-log)/' },
    },
    {
      name: 'auth-idempotency-processor-import-only-below',
      severity: 'error',
      comment: 'auth/, idempotency/ and payment-processor/ sit on platform/ and change-log/: they must not import api/, a feature, a flow, or anything above.',
      from: { path: '^src/(auth|idempotency|payment-processor)/' },
      to: { path: '^src/', pathNot: '^src/(platform|change-log|auth|idempotency|payment-processor)/' },
    },
    {
      name: 'api-imports-no-feature',
      severity: 'error',
      comment: 'api/ declares and serves operations for every feature: it must not import one, a flow, nor the registry above it.',
      from: { path: '^src/api/' },
      to: { path: '^src/', pathNot: '^src/(platform|change-log|auth|idempotency|payment-processor|api)/' },
    },
    ...FEATURES.map((feature) => ({
      name: 'features-stay-apart',
      severity: 'error',
      comment: `${feature}/ may reach only ${FEATURE_ORDER[feature].join(', ') || 'no other feature'}, and only through its index.ts: a feature's files are its own.`,
      from: { path: `^src/${feature}/` },
      to: {
        path: anyFeature,
        pathNot: [`^src/${feature}/`, ...FEATURE_ORDER[feature].map((below) => `^src/${below}/index\\.ts$`)],
      },
    })),
    {
      name: 'flows-are-above-features',
      severity: 'error',
      comment: 'flows/ spans features: nothing below it (platform, change-log, auth, api, a feature) may import a flow.',
      from: { path: `^src/(${BELOW_FLOWS.join('|')})/` },
      to: { path: '^src/flows/' },
    },
    {
      name: 'flows-are-above-features',
      severity: 'error',
      comment: "A flow reaches a feature through the feature's index.ts alone.",
      from: { path: '^src/flows/' },
      to: { path: anyFeature, pathNot: '^src/[^/]+/index\\.ts$' },
    },
    {
      name: 'flows-stay-apart',
      severity: 'error',
      comment: 'A flow does not import another flow: what two flows share belongs in a feature or below.',
      from: { path: '^src/flows/([^/]+)/' },
      to: { path: '^src/flows/', pathNot: '^src/flows/$1/' },
    },
    {
      name: 'features-import-no-registry-or-app',
      severity: 'error',
      comment: 'A feature or flow declares its own operations; the registry, the document, app.ts and server.ts assemble them.',
      from: { path: `${anyFeature}|^src/flows/` },
      to: { path: '^src/(modules|api-operations|app|server)\\.ts$|^src/docs/' },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^clients/typescript/src/api-types\\.ts$' },
  },
};

/**
 * Jest runs TypeScript through swc (@swc/jest), which only strips types: type
 * checking is `npm run typecheck`'s job, and a fresh clone's first run, with
 * no transform cache yet, is as fast as the next one. jose and uuid ship only
 * ES modules, so they are transpiled to CommonJS too; PGlite's CommonJS build
 * needs its built-in imports rewritten (see builtin-import-transformer.js).
 * Everything else in node_modules loads as it is.
 *
 * Jest stays on 29: jest 30's resolver needs platform binaries the package
 * registry this project installs from does not carry, and `npm ci` refuses a
 * lock file that lacks them.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // What needs a PostgreSQL server, initdb, PgBouncer or Chromium: `npm run test:system` (jest.system.config.js).
  testPathIgnorePatterns: ['/node_modules/', '/test/system/'],
  transform: {
    '/node_modules/@electric-sql/pglite/.+\\.cjs$': '<rootDir>/test/support/builtin-import-transformer.js',
    '^.+\\.(t|j)sx?$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(jose|uuid|@electric-sql/pglite)/)'],
  testTimeout: 30000,
  // Three workers on these two cores: each file has a database of its own (a copy of the template), and a process
  // test's service starts from a copy of it too (test/support/process/service-process.ts), so no two files fight
  // over creating one; the third fills the time the process tests wait on their services (docs/performance.md,
  // the test suite's time).
  maxWorkers: 3,
  // A worker's heap grows with each file it runs (each file loads the whole service afresh), and collecting a
  // large heap was much of the suite's CPU: a worker past this after a file is replaced by a new one
  // (docs/performance.md, the test suite's time, has the figures).
  workerIdleMemoryLimit: '300MB',
  // Every response is held to the OpenAPI document, and the last test checks
  // that every documented operation was exercised (test/support/contract/).
  setupFilesAfterEnv: ['<rootDir>/test/support/contract/contract-setup.ts'],
  // The keyring secrets are sealed with, as server.ts sets it at start-up.
  setupFiles: ['<rootDir>/test/support/secret-box-setup.ts'],
  // Made once for the run: the migrated PGlite data folder each file's database starts as a copy of, and the
  // OpenAPI document responses are held to.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  testSequencer: '<rootDir>/test/support/contract/contract-sequencer.js',
};

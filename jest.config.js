/**
 * Jest runs TypeScript through ts-jest in transpile-only mode (type checking
 * is `npm run typecheck`'s job, so tests start fast). jose and uuid ship only
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
  transform: {
    '/node_modules/@electric-sql/pglite/.+\\.cjs$': '<rootDir>/test/support/builtin-import-transformer.js',
    '^.+\\.(t|j)sx?$': [
      'ts-jest',
      {
        tsconfig: {
          isolatedModules: true,
          module: 'commonjs',
          moduleResolution: 'node10',
          allowJs: true,
          target: 'es2022',
          sourceMap: true,
        },
      },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(jose|uuid|@electric-sql/pglite)/)'],
  testTimeout: 30000,
};

/**
 * `npm run test:system`: the tests that need more than Node: the PostgreSQL
 * server at 127.0.0.1:5432 (each file makes a database of its own there),
 * `initdb` for clusters of their own, Debian's PgBouncer and Chromium (the
 * docs page against the production build). Its global set-up says what is
 * missing before any test runs, installs Debian's packages when run as root,
 * and builds dist/ when it is older than src/. `npm test` runs everything
 * else, on Node alone.
 * @type {import('jest').Config}
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/system'],
  testPathIgnorePatterns: ['/node_modules/'],
  globalSetup: '<rootDir>/test/support/system-requirements.js',
  // One file at a time: these break networks, restart servers and time their recovery.
  maxWorkers: 1,
};

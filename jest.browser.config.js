/**
 * `npm run test:browser`: the docs page in a real headless Chromium against
 * the production build. Separate from `npm test` because it needs `npm run
 * build` and Debian's chromium (.ci/run installs it when missing).
 * @type {import('jest').Config}
 */
const base = require('./jest.config');

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/browser'],
  testMatch: ['**/*.test.ts'],
  transform: base.transform,
  transformIgnorePatterns: base.transformIgnorePatterns,
  testTimeout: 60000,
};

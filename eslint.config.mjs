import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/', 'clients/typescript/dist/', 'node_modules/', 'data/', 'coverage/', 'test-output/', 'clients/typescript/src/api-types.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        __filename: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: ['**/*.cli.ts', '**/*.js', '**/*.cjs'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  // One way to the database: Knex's builder for lists and pages, named prepared
  // statements (platform/db/prepared-statement.ts) for the rest. Knex's raw SQL,
  // its client and its transaction flag are platform/db's business alone.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/platform/db/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='raw']",
          message: 'No raw SQL outside src/platform/db: declare a preparedStatement (or namedStatement) and run it, or use the query builder.',
        },
        {
          selector: "MemberExpression[property.name='isTransaction']",
          message: 'Whether a db is a transaction is for src/platform/db (inTransaction, afterCommit, isInTransaction).',
        },
        {
          selector: "MemberExpression[property.name='client'][object.name=/^(db|trx|knex)$/]",
          message: "Knex's client is internal: src/platform/db wraps what is needed (runPrepared, poolIsBusy, poolCounts).",
        },
      ],
    },
  },
  // The service orders and writes text without the host's locale: the same
  // answer on every host, and ICU's locale data (megabytes of each process's
  // memory) loaded only where a request needs it (docs/performance.md, Memory).
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { property: 'localeCompare', message: 'Order by code units (platform/code-unit-order.ts byCodeUnits), as SQL collate "C" does.' },
        { property: 'toLocaleString', message: "The document's numbers: platform/document-parts/prose-numbers.ts withThousands." },
      ],
    },
  },
  // Layout is Prettier's (npm run format): no ESLint rule argues with it.
  prettier,
);

// One lint setup for every workspace. Limits are architecture: small functions, shallow nesting.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.tollgate/**', '**/.cache/**', 'provider/cdktf/**', 'examples/cdktf/cdktf.out/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { project: ['./server/tsconfig.json', './contract/tsconfig.json', './provider/tsconfig.json', './operator/tsconfig.json', './testkit/tsconfig.json', './dashboard/tsconfig.json', './examples/cdktf/tsconfig.json'], tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'max-depth': ['error', 3],
      'max-params': ['error', 4],
      complexity: ['error', 12],
    },
  },
  // Every consumer of the management API calls it through the typed client (contract/src/api/client.ts): a hand-built
  // '/api/...' path would skip parameter encoding and the contract's response check. The API's own implementation and
  // its wire-level tests (server/src outside the kits, the fuzzers) speak raw HTTP on purpose; '/api/v1/...' is
  // Kubernetes.
  {
    files: ['operator/src/**/*.ts', 'provider/src/**/*.ts', 'server/src/cli/**/*.ts', 'testkit/src/**/*.ts', 'test/**/*.ts'],
    ignores: ['test/fuzz/**'],
    rules: {
      'no-restricted-syntax': ['error',
        { selector: 'Literal[value=/^\\u002Fapi\\u002F(?!v1\\u002F)/]', message: 'Call the management API through the typed client (ApiClient.call with a route of contract/src/api/routes.ts), not a hand-built path.' },
        { selector: 'TemplateElement[value.raw=/^\\u002Fapi\\u002F(?!v1\\u002F)/]', message: 'Call the management API through the typed client (ApiClient.call with a route of contract/src/api/routes.ts), not a hand-built path.' },
      ],
    },
  },
  // node:test's test() returns a promise the runner awaits itself.
  { files: ['**/*.test.ts'], rules: { '@typescript-eslint/no-floating-promises': 'off' } },
  { files: ['**/*.mjs', '**/*.js'], languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } } },
);

// One lint setup for every workspace. Limits are architecture: small functions, shallow nesting.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.tollgate/**', '**/.cache/**', 'provider/cdktf/**', 'examples/cdktf/cdktf.out/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { project: ['./server/tsconfig.json', './contract/tsconfig.json', './provider/tsconfig.json', './operator/tsconfig.json', './examples/cdktf/tsconfig.json'], tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'max-depth': ['warn', 3],
      'max-params': ['warn', 4],
      complexity: ['warn', 12],
    },
  },
  // node:test's test() returns a promise the runner awaits itself.
  { files: ['**/*.test.ts'], rules: { '@typescript-eslint/no-floating-promises': 'off' } },
  { files: ['**/*.mjs', '**/*.js'], languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } } },
);

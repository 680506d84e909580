// Lint rules that keep the architecture honest: no floating promises anywhere,
// and deterministic workflow code that cannot reach Node or I/O packages.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', '.tools/**', 'test-results/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { files: ['**/*.js'], languageOptions: { globals: { ...globals.node }, sourceType: 'commonjs' }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
  {
    files: ['**/*.ts'],
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['node:*', 'fs', 'path', 'http', 'https', 'net', 'crypto', 'child_process', 'os'], message: 'Workflow code must be deterministic: no Node built-ins.' },
          { group: ['pg', 'koa', '@koa/*', 'pino', '@temporalio/client', '@temporalio/worker', '@temporalio/activity', 'uuid'], message: 'Workflow code must not do I/O.' },
          { regex: '^\\.\\./(activities|src/(?!temporal/))', allowTypeImports: true, message: 'Only type imports from activities/ and src/; values only from the shared contract in src/temporal/.' },
        ],
      }],
    },
  },
);

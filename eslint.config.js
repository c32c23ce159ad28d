import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'dist-pkg/', '.push-kit/', 'tests/artifacts/', 'schema/', '**/*.hbs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-globals': 'off',
    },
  },
  {
    files: ['runtime/**', 'worker/**'],
    rules: {
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      'no-restricted-imports': ['error', { patterns: ['node:*', '../cli/*', '../server/*', 'react', 'react-dom*'] }],
    },
  },
  { files: ['examples/**/*.js'], languageOptions: { globals: { document: 'readonly', window: 'readonly' } } },
  {
    files: ['bin/**', 'bench/**', 'tests/**', 'cli/**', 'server/**'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);

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
      'no-restricted-imports': [
        'error',
        // zod (through contract/'s schemas) would add tens of kilobytes to push.js.
        {
          patterns: [
            'node:*',
            '../cli/*',
            '../server/*',
            'react',
            'react-dom*',
            'zod',
            '../contract/campaign-input.ts',
            '../contract/text-fields.ts',
          ],
        },
      ],
    },
  },
  {
    // The wires' types and constants: imported by the browser code, the server, the dashboard and the CLI alike.
    files: ['contract/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['node:*', '../*', 'react', 'react-dom*', 'fastify', 'pg', '@electric-sql/*'] }],
    },
  },
  {
    // The dashboard reaches outside its folder for the wires' contract only (and, for now, the condition parser).
    files: ['dashboard/src/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: ['node:*', '../../*', '!../../contract', '!../../compiler', '../../compiler/*', '!../../compiler/segment-condition.ts'],
        },
      ],
    },
  },
  { files: ['examples/**/*.js'], languageOptions: { globals: { document: 'readonly', window: 'readonly' } } },
  {
    files: ['bin/**', 'bench/**', 'tests/**', 'cli/**', 'server/**'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);

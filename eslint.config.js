import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The house's one-way imports (../shared/DESIGN.md): for each folder, what it may not import.
const NODE = { regex: '^node:', message: 'browser code and the wires never import Node modules' };
const REACT = { regex: '^(react|react-dom|ink)(/|$)', message: 'no React or Ink in this layer' };
const folder = (name, message) => ({ regex: `^(\\.\\./)+${name}/`, message });
const CLI = folder('cli', 'only bin/ and cli/ import cli/: move shared code to config/, compiler/, emit/ or server/');
const SERVER = folder('server', 'this layer never imports the provider');
const EMIT = folder('emit', 'data flows config -> compiler -> emit: this layer never imports emit/');
// zod (through contract/'s schemas) would add tens of kilobytes to push.js.
const ZOD = {
  regex: '^zod$|contract/(campaign-input|text-fields)\\.ts$',
  message: 'no zod in browser code: import constants and types only',
};
// The provider is cut by capability over shared plumbing (../shared/DESIGN.md, README "Architecture").
const CAPABILITY =
  '(sync|visitors|subscribers|segments|campaigns|automations|stats|shop|site-files|dashboard|import|webhooks|members|feeds|keys|compose)';
const THROUGH_INDEX = {
  regex: `^(\\.{1,2}/)+(server/)?${CAPABILITY}/(?!index\\.ts$)`,
  message: 'another capability is used through its index.ts, its small public file',
};
const NO_COMPOSITION = {
  regex: '^\\.\\./http/(app|owner-api)\\.ts$',
  message: 'http/app.ts registers the capabilities; a capability never imports it',
};
const NO_CAPABILITY = {
  regex: `^\\.\\./${CAPABILITY}/`,
  message: 'plumbing (http/, db/, push/) never imports a capability: capabilities import plumbing',
};
const layer = (name, message) => ({ regex: `^\\.\\./${name}/`, message });
const restrict = (files, patterns) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns }] } });

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'dist-pkg/', '.push-kit/', 'tests/artifacts/', 'schema/', 'dashboard/dist/', '**/*.hbs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-globals': 'off',
    },
  },
  {
    files: ['runtime/**', 'worker/**', 'contract/**'],
    rules: { 'no-eval': 'error', 'no-implied-eval': 'error', 'no-new-func': 'error' },
  },
  restrict(
    ['runtime/**', 'worker/**'],
    [
      NODE,
      REACT,
      ZOD,
      CLI,
      SERVER,
      EMIT,
      folder('(config|compiler|templates|dashboard|react)', 'browser code imports only runtime/, worker/ and contract/'),
    ],
  ),
  restrict(
    ['contract/**'],
    [
      NODE,
      REACT,
      { regex: '^(fastify|pg|@electric-sql/.*)$', message: 'contract/ is browser-safe' },
      folder(
        '(cli|config|compiler|emit|server|runtime|worker|templates|dashboard)',
        'contract/ imports nothing of the project: both sides of a wire import it',
      ),
    ],
  ),
  restrict(
    ['dashboard/**'],
    [NODE, { regex: '^(\\.\\./){2,}(?!contract/)[a-z-]+/', message: 'the dashboard imports only contract/ from outside its folder' }],
  ),
  restrict(['config/**', 'compiler/**'], [CLI, SERVER, EMIT, REACT]),
  restrict(['emit/**', 'templates/**', 'bench/**', 'index.ts'], [CLI]),
  restrict(['server/*.ts', 'server/http/app.ts'], [CLI, THROUGH_INDEX]),
  restrict(['server/*/**'], [CLI, THROUGH_INDEX, NO_COMPOSITION]),
  restrict(['server/http/**'], [CLI, NO_CAPABILITY]),
  restrict(['server/http/app.ts'], [CLI, THROUGH_INDEX]),
  restrict(['server/db/**'], [CLI, NO_CAPABILITY, layer('(http|push)', 'the database layer imports no HTTP or push transport code')]),
  restrict(
    ['server/push/**'],
    [CLI, NO_CAPABILITY, layer('(http|db)', 'the push transport sends and encrypts: no HTTP routes or database (as web-push/src)')],
  ),
  restrict(['cli/**'], [THROUGH_INDEX]),
  { files: ['examples/**/*.js'], languageOptions: { globals: { document: 'readonly', window: 'readonly' } } },
  {
    files: ['bin/**', 'bench/**', 'tests/**', 'cli/**', 'server/**', 'config/**', 'compiler/**', 'emit/**', 'scripts/**', 'index.ts'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);

// ESLint (flat config): typescript-eslint's recommended rules, the layer boundaries of
// ../shared/DESIGN.md ("core <- agent <- extension; webview <- protocol; never back up") and the size
// limits (files 500 lines, functions 120). `npm run lint`; part of `npm test`.
// The module-graph test (test/core/no-vscode.test.ts) proves the same boundaries transitively on the
// graph esbuild resolves, and that there are no import cycles (type-only imports included, which
// import-x's no-cycle skips); these rules name the offending line while you type.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/** Core internals: anything under src/core but its public surface (src/core/index.ts). */
const CORE_INTERNALS = {
  group: ['**/core/*', '!**/core/index'],
  message: 'Import the engine through its public surface (src/core/index.ts), not its internals.',
};
const VSCODE = { name: 'vscode', message: 'Only src/extension may import vscode.' };
const WEBVIEW = { group: ['**/webview/**'], message: 'The host never imports webview code.' };
const UPWARD_FROM_CORE = {
  group: [
    '**/agent',
    '**/agent/**',
    '**/extension',
    '**/extension/**',
    '**/protocol',
    '**/inspectorModel',
    '**/cliMain',
    '**/cli/**',
    '**/webviewHtml',
  ],
  message: 'src/core is the bottom layer: it imports nothing from the agent, the extension or the protocol.',
};
const UPWARD_FROM_AGENT = {
  group: ['**/extension', '**/extension/**'],
  message: 'src/agent is below src/extension: it never imports it.',
};
const HOST_FROM_WEBVIEW = {
  group: ['**/src/*', '**/src/**', '!**/src/protocol'],
  message: 'Webviews import only the protocol (src/protocol.ts) from the host.',
};
const NODE_FROM_WEBVIEW = { group: ['node:*'], message: 'Webviews run in a browser: no Node modules.' };

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'out/**',
      'node_modules/**',
      '.e2e-cache/**',
      '.vscode-test/**',
      'test-artifacts/**',
      '**/.scratch/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,mjs,js}'],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      'max-len': ['error', { code: 160, ignoreUrls: true, ignoreRegExpLiterals: true }],
    },
  },
  {
    // TypeScript checks names itself (and knows the DOM and Node types each tsconfig allows).
    files: ['**/*.{ts,tsx}'],
    rules: { 'no-undef': 'off' },
  },
  {
    // Plain scripts injected into pages by the webview tests and the bench.
    files: ['test/webview/**/*.js', 'bench/inspector/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The tokenizer's ranks are megabytes: required on first use, never at activation (esbuild.mjs
    // maps these requires to dist/tokenizer/*.js). A static import would load them eagerly.
    // The same for the Anthropic and MCP SDKs (dist/vendor/*.js), required by src/agent/loop/sdks.ts on first use.
    files: ['src/core/counting/tokenizers.ts', 'src/agent/loop/sdks.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/**/*.{ts,tsx}', 'webview/**/*.{ts,tsx}'],
    rules: {
      'max-lines': ['error', { max: 500 }],
      'max-lines-per-function': ['error', { max: 120 }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [VSCODE], patterns: [UPWARD_FROM_CORE, WEBVIEW] }] },
  },
  {
    files: ['src/agent/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [VSCODE], patterns: [CORE_INTERNALS, UPWARD_FROM_AGENT, WEBVIEW] }] },
  },
  {
    files: ['src/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [VSCODE], patterns: [CORE_INTERNALS, WEBVIEW] }] },
  },
  {
    files: ['src/extension/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [CORE_INTERNALS, WEBVIEW] }] },
  },
  {
    files: ['webview/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { paths: [VSCODE], patterns: [HOST_FROM_WEBVIEW, NODE_FROM_WEBVIEW] }] },
  },
);

// ESLint (flat config): typescript-eslint's recommended rules, the layers of layers.json (the one table:
// which layer may import which, vscode only in the extension, Node modules never in the webviews, the
// engine only through src/core/index.ts; a file outside every layer is an error) and the size limits
// (files 500 lines, functions 120) in src, webview, test and bench. `npm run lint`; part of `npm test`.
// The module-graph test (test/core/moduleGraph.test.ts) checks the same table transitively on the graph
// esbuild resolves, and that there are no import cycles; this rule names the offending line while you type.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { layersPlugin } from './scripts/layers.mjs';

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
    // The same for the Anthropic and MCP SDKs (dist/vendor/*.js), required by src/agent/loop/sdks.ts on first use,
    // and for the engine and the glue (dist/core.js, dist/host.js), required in turns by src/extension/shell.ts.
    files: ['src/core/counting/tokenizers.ts', 'src/agent/loop/sdks.ts', 'src/extension/shell.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/**/*.{ts,tsx}', 'webview/**/*.{ts,tsx}', 'test/**/*.{ts,tsx,mjs}', 'bench/**/*.{ts,tsx,mjs}'],
    rules: {
      'max-lines': ['error', { max: 500 }],
      'max-lines-per-function': ['error', { max: 120 }],
    },
  },
  {
    // Every source file of the extension, the CLI and the webviews belongs to a layer of layers.json and
    // imports only what its layer may. Tests and the bench may import the engine's internals.
    files: ['src/**/*.{ts,tsx}', 'webview/**/*.{ts,tsx}'],
    plugins: { layers: layersPlugin() },
    rules: { 'layers/imports': 'error' },
  },
  {
    // The webviews run in a browser: Node's globals are errors while you type (tsconfig.webview.json
    // includes Node's types for the core types the protocol imports; test/protocol/webviewTypes.test.ts
    // compiles the webviews without them).
    files: ['webview/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'require', '__dirname', '__filename', 'global', 'setImmediate'].map((name) => ({
          name,
          message: 'Webviews run in a browser: no Node globals.',
        })),
      ],
    },
  },
);

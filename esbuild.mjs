// Bundles the extension host, its token-counting worker, the CLI and the webviews. `node esbuild.mjs [--watch] [--production]`
import * as esbuild from 'esbuild';
import { existsSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join, resolve as resolvePath, sep } from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
};

// The tokenizer's ranks are megabytes: they live in their own files under dist/tokenizer/ and are
// required on first use (never at activation). The host bundles require them by relative path.
const LAZY_MODULES = {
  'gpt-tokenizer/encoding/o200k_base': 'gpt-tokenizer-o200k',
  'js-tiktoken/lite': 'js-tiktoken-lite',
  'js-tiktoken/ranks/o200k_base': 'js-tiktoken-o200k-ranks',
};
const lazyTokenizer = {
  name: 'lazy-tokenizer',
  setup(build) {
    const filter = new RegExp(
      `^(${Object.keys(LAZY_MODULES)
        .map((m) => m.replace(/[/.]/g, '\\$&'))
        .join('|')})$`,
    );
    build.onResolve({ filter }, (args) => ({ path: `./tokenizer/${LAZY_MODULES[args.path]}.js`, external: true }));
  },
};

// The Anthropic and MCP SDKs are most of the extension's code: src/agent/loop/sdks.ts requires them on first
// use, and in the extension bundle those requires load dist/vendor/*.js (never at activation).
const VENDOR = {
  '@anthropic-ai/sdk': { name: 'anthropic-sdk', stdin: `module.exports = require('@anthropic-ai/sdk');` },
  '../mcp/sdkExports': { name: 'mcp-sdk', entry: 'src/agent/mcp/sdkExports.ts' },
};
const lazyVendor = {
  name: 'lazy-vendor',
  setup(build) {
    build.onResolve({ filter: /^(@anthropic-ai\/sdk|\.\.\/mcp\/sdkExports)$/ }, (args) =>
      // Only sdks.ts's requires: type imports are erased, and nothing else may import the SDKs' values.
      /[\\/]src[\\/]agent[\\/]loop[\\/]sdks\.ts$/.test(args.importer) && args.kind === 'require-call'
        ? { path: `./vendor/${VENDOR[args.path].name}.js`, external: true }
        : undefined,
    );
  },
};

// The extension host's code is three bundles, required in turns at activation (src/extension/shell.ts):
// dist/extension.js (the shell), dist/core.js (src/core, the engine) and dist/host.js (the VS Code glue and
// src/agent). Code outside src/core imports it only through src/core/index.ts (layers.json): in dist/host.js
// and the shell those imports are requires of ./core.js, so the engine is loaded once, from its own file.
const CORE_DIR = realpathSync(resolvePath('src/core'));
const coreExternal = {
  name: 'core-external',
  setup(build) {
    build.onResolve({ filter: /(^|\/)core(\/index)?$/ }, (args) => {
      if (args.importer.startsWith(CORE_DIR + sep)) return undefined;
      const target = resolvePath(dirname(args.importer), args.path);
      return target === CORE_DIR || target === join(CORE_DIR, 'index') ? { path: './core.js', external: true } : undefined;
    });
  },
};
// The shell's require of the glue (./extension) is dist/host.js.
const hostExternal = {
  name: 'host-external',
  setup(build) {
    build.onResolve({ filter: /^\.\/extension$/ }, (args) =>
      /[\\/]src[\\/]extension[\\/]shell\.ts$/.test(args.importer) ? { path: './host.js', external: true } : undefined,
    );
  },
};

// A production build starts clean so no stale source map or bundle ends up in the .vsix.
if (production) rmSync('dist', { recursive: true, force: true });

/** @type {esbuild.BuildOptions[]} */
const builds = [
  ...Object.entries(LAZY_MODULES).map(([module, name]) => ({
    ...common,
    sourcemap: false,
    stdin: { contents: `module.exports = require(${JSON.stringify(module)});`, resolveDir: '.', loader: 'js' },
    outfile: `dist/tokenizer/${name}.js`,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    entryPoints: [],
  })),
  ...Object.values(VENDOR).map(({ name, stdin, entry }) => ({
    ...common,
    sourcemap: false,
    ...(stdin ? { stdin: { contents: stdin, resolveDir: '.', loader: 'js' }, entryPoints: [] } : { entryPoints: [entry] }),
    outfile: `dist/vendor/${name}.js`,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  })),
  {
    ...common,
    entryPoints: ['src/extension/shell.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    plugins: [coreExternal, hostExternal],
  },
  {
    ...common,
    entryPoints: ['src/core/index.ts'],
    outfile: 'dist/core.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    plugins: [lazyTokenizer],
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  },
  {
    ...common,
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/host.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    plugins: [coreExternal, lazyTokenizer, lazyVendor],
    // jsonc-parser's `main` is a UMD build whose inner requires esbuild cannot follow: bundle its ESM build.
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  },
  {
    // Token counting runs on this worker thread (src/core/counting/workerTokenizer.ts finds it beside the bundles).
    ...common,
    entryPoints: ['src/core/counting/countWorker.ts'],
    outfile: 'dist/countWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    plugins: [lazyTokenizer],
  },
  {
    ...common,
    entryPoints: ['src/cli.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    plugins: [lazyTokenizer],
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  },
  {
    // `splitpoint tune` replays on these worker threads (src/cli/tunePool.ts finds it beside dist/cli.js).
    ...common,
    entryPoints: ['src/cli/tuneWorker.ts'],
    outfile: 'dist/tuneWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    plugins: [lazyTokenizer],
  },
  {
    ...common,
    entryPoints: ['webview/chat/main.tsx'],
    outfile: 'dist/webview/chat.js',
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    jsx: 'automatic',
    jsxImportSource: 'preact',
  },
  {
    ...common,
    entryPoints: ['webview/inspector/main.tsx'],
    outfile: 'dist/webview/inspector.js',
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    jsx: 'automatic',
    jsxImportSource: 'preact',
  },
].filter((b) => b.entryPoints.every((e) => existsSync(e)));

if (watch) {
  for (const b of builds) (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}

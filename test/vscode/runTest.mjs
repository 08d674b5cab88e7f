// `npm run test:vscode`: the integration suite (test/vscode/suite) inside a real VS Code desktop,
// downloaded by @vscode/test-electron (into .vscode-test/). Needs the network to download VS Code
// and a display (run under xvfb-run on a headless Linux). Not part of `npm test`: the end-to-end
// tests there use code-server instead (test/e2e), which needs no download.
//   VSCODE_TEST_VERSION=1.100.3 npm run test:vscode     (default: stable)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { runTests } from '@vscode/test-electron';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Bundles the TypeScript suite for the extension host (`vscode` is provided by VS Code). */
export async function buildSuite(outfile = join(ROOT, 'out', 'test', 'vscode', 'suite', 'index.js')) {
  await esbuild.build({
    entryPoints: [join(ROOT, 'test', 'vscode', 'suite', 'index.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return outfile;
}

async function main() {
  const extensionTestsPath = await buildSuite();
  const workspace = mkdtempSync(join(tmpdir(), 'splitpoint-vscode-workspace-'));
  try {
    await runTests({
      version: process.env.VSCODE_TEST_VERSION || 'stable',
      extensionDevelopmentPath: ROOT,
      extensionTestsPath,
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
    });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(`VS Code integration tests failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}

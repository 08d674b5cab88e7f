// The @vscode/test-electron suite (test/vscode) cannot run here (it downloads VS Code), so this keeps
// it honest where it can: it bundles, and the bundle exports run() for VS Code to call.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
// @ts-expect-error: a plain .mjs script without type declarations
import { buildSuite } from './vscode/runTest.mjs';

test('the VS Code integration suite bundles and exports run()', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'splitpoint-suite-'));
  try {
    const outfile: string = await buildSuite(join(dir, 'index.js'));
    // Load it with a stand-in for the `vscode` module, which only an extension host provides.
    const load = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
    const original = load._load;
    load._load = (request, ...rest) => (request === 'vscode' ? {} : original(request, ...rest));
    try {
      const suite = createRequire(outfile)(outfile) as { run?: unknown };
      assert.equal(typeof suite.run, 'function');
    } finally {
      load._load = original;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

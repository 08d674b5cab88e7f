// The engine runs in plain Node: nothing under src/core may import `vscode`, directly or through
// another module. Checked on the real module graph esbuild resolves, not just on the text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('no module under src/core imports vscode, directly or transitively', async () => {
  const entryPoints = tsFiles('src/core');
  assert.ok(entryPoints.length > 10, 'expected the engine sources');
  const result = await esbuild.build({
    entryPoints,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    outdir: 'out-core-check',
    external: ['vscode'],
    logLevel: 'silent',
  });
  const offenders: string[] = [];
  for (const [file, info] of Object.entries(result.metafile!.inputs)) {
    for (const imp of info.imports) if (imp.path === 'vscode') offenders.push(file);
  }
  assert.deepEqual(offenders, []);
});

test('the vscode import check does catch an import of vscode', async () => {
  const result = await esbuild.build({
    stdin: { contents: "import * as vscode from 'vscode'; export const x = vscode;", resolveDir: '.', loader: 'ts' },
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    external: ['vscode'],
    logLevel: 'silent',
  });
  const imports = Object.values(result.metafile!.inputs).flatMap((i) => i.imports.map((x) => x.path));
  assert.ok(imports.includes('vscode'));
});

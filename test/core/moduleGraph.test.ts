// The layers of layers.json (the one table; ESLint reads the same), checked on the real module graph
// (what esbuild bundles, plus the type-only imports TypeScript sees), not just on the text:
//   - every source file under src/ and webview/ belongs to a layer; directly in src/ only entry points;
//   - every import between source files goes to the importer's own layer or one it lists;
//   - src/core/index.ts is the engine's only door: no file outside src/core imports another core file;
//   - only the layers marked `vscode` reach `vscode`, transitively (the engine and the agent run in plain Node);
//   - the CLI bundle contains no extension code; no import cycles among the files under src/.
// Each checker also has a test proving it catches a violation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { layerOf, readLayers, type Layer } from '../../scripts/layers.mjs';
import { coreInternalsImportedFromOutside, importCycles, moduleGraph, reachableFrom, sourceFiles, type ModuleGraph } from './moduleGraph';

const LAYERS = readLayers();
const SOURCE_ROOTS = ['src', 'webview'];

let whole: Promise<ModuleGraph> | undefined;
/** Everything the extension, the CLI, the agent, the engine and the webviews are made of. */
function projectGraph(): Promise<ModuleGraph> {
  whole ??= moduleGraph(SOURCE_ROOTS.flatMap((d) => sourceFiles(d)));
  return whole;
}

/** Source files of `roots` that no layer of `layers` holds (a file directly in src/ must be a named entry point). */
export function filesOutsideLayers(files: string[], layers: Layer[]): string[] {
  return files.filter((f) => !layerOf(f, layers)).sort();
}

/** `importer -> imported (why)` for every graph edge between source files that the table does not allow. */
export function layerViolations(graph: ModuleGraph, layers: Layer[]): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(file, layers);
    if (!from) continue;
    for (const t of targets) {
      if (t === 'vscode' && !from.vscode) out.push(`${file} -> vscode (only ${layers.filter((l) => l.vscode).map((l) => l.name)} may)`);
      const to = layerOf(t, layers);
      if (to && to !== from && !from.mayImport.includes(to.name)) out.push(`${file} -> ${t} (${from.name} may not import ${to.name})`);
    }
  }
  return out.sort();
}

/** Files of the graph that import `vscode`, among those reachable from `roots`. */
function vscodeImports(graph: ModuleGraph, roots: string[]): string[] {
  const offenders: string[] = [];
  for (const file of reachableFrom(graph, roots))
    for (const t of graph.get(file) ?? []) if (t === 'vscode') offenders.push(`${file} -> ${t}`);
  return offenders.sort();
}

test('every source file under src/ and webview/ belongs to a layer of layers.json; directly in src/ only entry points', () => {
  const files = SOURCE_ROOTS.flatMap((d) => sourceFiles(d));
  assert.ok(files.length > 200, 'expected the sources');
  assert.deepEqual(filesOutsideLayers(files, LAYERS), []);
  const loose = readdirSync('src').filter((n) => /\.tsx?$/.test(n));
  const entryPoints = LAYERS.flatMap((l) => l.entryPoints ?? []);
  assert.deepEqual(
    loose.map((n) => `src/${n}`).filter((f) => !entryPoints.includes(f)),
    [],
  );
});

test('every import between source files goes to its own layer or one the table lets it import (type-only imports included)', async () => {
  const graph = await projectGraph();
  assert.ok(
    [...graph.keys()].some((f) => f.startsWith('webview/')),
    'the webviews are part of the graph',
  );
  assert.deepEqual(layerViolations(graph, LAYERS), []);
});

test('outside src/core, code imports the engine only through src/core/index.ts (type-only imports included)', async () => {
  const graph = await projectGraph();
  assert.ok(graph.has('src/core/index.ts'), 'the host reaches the engine');
  assert.deepEqual(coreInternalsImportedFromOutside(graph), []);
});

test('only the layers marked vscode reach vscode, directly or transitively: the engine, settings and the agent run in plain Node', async () => {
  const graph = await projectGraph();
  for (const layer of LAYERS.filter((l) => !l.vscode)) {
    const files = [...graph.keys()].filter((f) => layerOf(f, LAYERS) === layer);
    assert.ok(files.length > 0, `expected files of ${layer.name}`);
    assert.deepEqual(vscodeImports(graph, files), [], layer.name);
  }
});

test('the CLI bundle contains no extension code and no vscode', async () => {
  const graph = await projectGraph();
  const cli = [...reachableFrom(graph, ['src/cli.ts'])];
  assert.ok(cli.includes('src/cli/main.ts'), 'the CLI reaches its commands');
  assert.deepEqual(
    cli.filter((f) => f.startsWith('src/extension/') || f === 'vscode'),
    [],
  );
});

test('there are no import cycles among the files under src/', async () => {
  const graph = await projectGraph();
  assert.deepEqual(
    importCycles(graph, (f) => f.startsWith('src/')),
    [],
  );
});

// ---------------------------------------------------------------------------------------------------
// The checkers catch what they are meant to catch.

test('a file outside every layer is found: a loose file in src/, a folder no layer names', () => {
  assert.deepEqual(
    filesOutsideLayers(['src/cli.ts', 'src/stray.ts', 'src/newlayer/a.ts', 'src/core/x/y.ts', 'webview/chat/App.tsx'], LAYERS),
    ['src/newlayer/a.ts', 'src/stray.ts'],
  );
});

test('the layer check catches an upward import, vscode outside the extension, and a webview importing the agent', () => {
  const graph: ModuleGraph = new Map([
    ['src/core/pipeline/plan.ts', new Set(['src/agent/loop/agent.ts'])],
    ['src/settings/x.ts', new Set(['vscode', 'src/core/index.ts'])],
    ['webview/chat/App.tsx', new Set(['src/agent/loop/agent.ts', 'src/protocol/index.ts'])],
    ['src/extension/extension.ts', new Set(['vscode', 'src/agent/loop/agent.ts'])],
  ]);
  assert.deepEqual(layerViolations(graph, LAYERS), [
    'src/core/pipeline/plan.ts -> src/agent/loop/agent.ts (core may not import agent)',
    'src/settings/x.ts -> vscode (only extension may)',
    'webview/chat/App.tsx -> src/agent/loop/agent.ts (webview may not import agent)',
  ]);
});

test('the vscode check does catch an import of vscode', async () => {
  const graph = await moduleGraph([], {
    contents: "import * as vscode from 'vscode'; export const x = vscode;",
    resolveDir: '.',
    loader: 'ts',
  });
  assert.deepEqual(vscodeImports(graph, [...graph.keys()]), ['<stdin> -> vscode']);
});

test('the boundary check catches a core internal imported from outside', () => {
  const graph: ModuleGraph = new Map([
    ['src/agent/a.ts', new Set(['src/core/index.ts', 'src/core/pipeline/plan.ts', 'src/agent/b.ts'])],
    ['src/core/index.ts', new Set(['src/core/pipeline/plan.ts'])],
    ['src/core/pipeline/plan.ts', new Set<string>()],
  ]);
  assert.deepEqual(coreInternalsImportedFromOutside(graph), ['src/agent/a.ts -> src/core/pipeline/plan.ts']);
});

test('the cycle check finds a cycle made only of type imports, which esbuild erases', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-cycle-'));
  try {
    writeFileSync(join(dir, 'a.ts'), "import type { B } from './b';\nexport type A = { b?: B };\nexport const a = 1;\n");
    writeFileSync(join(dir, 'b.ts'), "import type { A } from './a';\nexport type B = { a?: A };\n");
    writeFileSync(join(dir, 'c.ts'), "import { a } from './a';\nexport const c = a;\n");
    const graph = await moduleGraph([join(dir, 'c.ts')]);
    const cycles = importCycles(graph);
    assert.equal(cycles.length, 1, JSON.stringify(cycles));
    assert.deepEqual(
      cycles[0].map((f) => f.split('/').pop()),
      ['a.ts', 'b.ts'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the cycle check reports each cycle once, with every file in it, and ignores files outside the filter', () => {
  const graph: ModuleGraph = new Map([
    ['src/a.ts', new Set(['src/b.ts'])],
    ['src/b.ts', new Set(['src/c.ts', 'node:fs'])],
    ['src/c.ts', new Set(['src/a.ts'])],
    ['src/d.ts', new Set(['src/d.ts'])],
    ['src/e.ts', new Set(['src/a.ts'])],
    ['test/x.ts', new Set(['test/y.ts'])],
    ['test/y.ts', new Set(['test/x.ts'])],
  ]);
  assert.deepEqual(
    importCycles(graph, (f) => f.startsWith('src/')),
    [['src/a.ts', 'src/b.ts', 'src/c.ts'], ['src/d.ts']],
  );
});

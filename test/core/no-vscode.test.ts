// The layers of ../shared/DESIGN.md, checked on the real module graph (what esbuild bundles, plus the
// type-only imports TypeScript sees), not just on the text:
//   - the engine runs in plain Node: nothing under src/core imports `vscode`, directly or transitively;
//   - src/core/index.ts is the engine's only door: no file outside src/core imports another core file;
//   - the agent runs in plain Node too: nothing reachable from src/agent imports `vscode` or webview code;
//   - no import cycles among the files under src/.
// Each checker also has a test proving it catches a violation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { coreInternalsImportedFromOutside, importCycles, moduleGraph, reachableFrom, sourceFiles, type ModuleGraph } from './moduleGraph';

const WEBVIEW_ENTRIES = ['webview/chat/main.tsx', 'webview/inspector/main.tsx'];
const HOST_ENTRIES = ['src/extension/extension.ts', 'src/cli.ts'];

let whole: Promise<ModuleGraph> | undefined;
/** Everything the extension, the CLI, the agent, the engine and the webviews are made of. */
function projectGraph(): Promise<ModuleGraph> {
  whole ??= moduleGraph([...HOST_ENTRIES, ...sourceFiles('src/agent'), ...sourceFiles('src/core'), ...WEBVIEW_ENTRIES]);
  return whole;
}

/** Files of the graph that import `vscode` or a webview file, among those reachable from `roots`. */
function hostOnlyImports(graph: ModuleGraph, roots: string[]): string[] {
  const offenders: string[] = [];
  for (const file of reachableFrom(graph, roots)) {
    for (const t of graph.get(file) ?? []) if (t === 'vscode' || t.startsWith('webview/')) offenders.push(`${file} -> ${t}`);
  }
  return offenders.sort();
}

test('no module under src/core imports vscode, directly or transitively', async () => {
  const entryPoints = sourceFiles('src/core');
  assert.ok(entryPoints.length > 10, 'expected the engine sources');
  const graph = await moduleGraph(entryPoints);
  assert.deepEqual(hostOnlyImports(graph, entryPoints), []);
});

test('outside src/core, code imports the engine only through src/core/index.ts (type-only imports included)', async () => {
  const graph = await projectGraph();
  assert.ok(graph.has('src/core/index.ts'), 'the host reaches the engine');
  assert.ok(
    [...graph.keys()].some((f) => f.startsWith('webview/')),
    'the webviews are part of the graph',
  );
  assert.deepEqual(coreInternalsImportedFromOutside(graph), []);
});

test('nothing reachable from src/agent imports vscode or webview code', async () => {
  const graph = await projectGraph();
  const agent = [...graph.keys()].filter((f) => f.startsWith('src/agent/'));
  assert.ok(agent.length > 3, 'expected the agent sources');
  assert.deepEqual(hostOnlyImports(graph, agent), []);
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

test('the vscode import check does catch an import of vscode', async () => {
  const graph = await moduleGraph([], {
    contents: "import * as vscode from 'vscode'; export const x = vscode;",
    resolveDir: '.',
    loader: 'ts',
  });
  assert.deepEqual(hostOnlyImports(graph, [...graph.keys()]), ['<stdin> -> vscode']);
});

test('the boundary check catches a core internal imported from outside, and a webview file reached from the agent', () => {
  const graph: ModuleGraph = new Map([
    ['src/agent/a.ts', new Set(['src/core/index.ts', 'src/core/plan.ts', 'src/agent/b.ts'])],
    ['src/agent/b.ts', new Set(['webview/shared/format.ts'])],
    ['webview/shared/format.ts', new Set<string>()],
    ['src/core/index.ts', new Set(['src/core/plan.ts'])],
    ['src/core/plan.ts', new Set<string>()],
  ]);
  assert.deepEqual(coreInternalsImportedFromOutside(graph), ['src/agent/a.ts -> src/core/plan.ts']);
  assert.deepEqual(hostOnlyImports(graph, ['src/agent/a.ts']), ['src/agent/b.ts -> webview/shared/format.ts']);
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

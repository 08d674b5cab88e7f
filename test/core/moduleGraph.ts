// The project's module graph, as the bundler and the type checker resolve it: esbuild's metafile gives
// every import that survives to runtime; TypeScript's pre-processor adds the `import type` edges that
// esbuild erases (a type-only import of a core internal is still a layer violation, and a type-only
// cycle is still a cycle). Paths are relative to the repository root, with forward slashes.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as esbuild from 'esbuild';
import ts from 'typescript';

/** file -> the files and bare module names it imports. */
export type ModuleGraph = Map<string, Set<string>>;

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(p) && !p.endsWith('.d.ts') ? [p.split('\\').join('/')] : [];
  });
}

const compilerOptions: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  jsx: ts.JsxEmit.ReactJSX,
  resolveJsonModule: true,
};

function normalize(p: string): string {
  return relative(process.cwd(), p).split('\\').join('/');
}

/** Every import of `file` as the type checker resolves it (type-only imports included). */
function typeScriptImports(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles.map(({ fileName }) => {
    const resolved = ts.resolveModuleName(fileName, file, compilerOptions, ts.sys).resolvedModule;
    if (!resolved || resolved.isExternalLibraryImport || resolved.resolvedFileName.includes('node_modules')) return fileName;
    return normalize(resolved.resolvedFileName);
  });
}

/** The graph reachable from `entryPoints` (or from the stdin module, for the checker's own tests). */
export async function moduleGraph(entryPoints: string[], stdin?: esbuild.StdinOptions): Promise<ModuleGraph> {
  const result = await esbuild.build({
    ...(stdin ? { stdin } : { entryPoints }),
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    outdir: 'out-module-graph-check',
    packages: 'external',
    external: ['vscode'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    logLevel: 'silent',
  });
  const graph: ModuleGraph = new Map();
  for (const [file, info] of Object.entries(result.metafile.inputs)) {
    graph.set(file, new Set(info.imports.map((i) => i.path)));
  }
  // Type-only imports, and the files only they reach.
  const queue = [...graph.keys()].filter((f) => /\.tsx?$/.test(f));
  while (queue.length > 0) {
    const file = queue.pop()!;
    const edges = graph.get(file) ?? new Set<string>();
    graph.set(file, edges);
    for (const target of typeScriptImports(file)) {
      edges.add(target);
      if (/\.tsx?$/.test(target) && !graph.has(target)) {
        graph.set(target, new Set());
        queue.push(target);
      }
    }
  }
  return graph;
}

/** The graph's import cycles among the files `include` accepts: its strongly connected components of more than one file (or a file importing itself). */
export function importCycles(graph: ModuleGraph, include: (file: string) => boolean = () => true): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  const edges = (f: string) => [...(graph.get(f) ?? [])].filter((t) => graph.has(t) && include(t));
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || edges(v).includes(v)) cycles.push(component.sort());
    }
  };
  for (const f of [...graph.keys()].sort()) if (include(f) && !index.has(f)) visit(f);
  return cycles;
}

/** Files reachable from `roots` through the graph (the roots included). */
export function reachableFrom(graph: ModuleGraph, roots: Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const f = queue.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const t of graph.get(f) ?? []) queue.push(t);
  }
  return seen;
}

/** `importer -> imported` for every edge from a file outside src/core to a src/core file other than src/core/index.ts. */
export function coreInternalsImportedFromOutside(graph: ModuleGraph): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    if (file.startsWith('src/core/')) continue;
    if (!file.startsWith('src/') && !file.startsWith('webview/')) continue;
    for (const t of targets) if (t.startsWith('src/core/') && t !== 'src/core/index.ts') out.push(`${file} -> ${t}`);
  }
  return out.sort();
}

// The engine's public surface stays narrow: src/core/index.ts exports exactly the names that code under
// src/ outside core imports from it. A name only tests, the bench or scripts use is imported there by its
// internal module path (src/core/<folder>/<module>), which ESLint allows under test/, bench/ and scripts/
// and forbids in src/. Imports are read with the TypeScript parser: named and default imports, `import
// type`, re-exports (`export { x } from`, `export *`), namespace imports (`import * as core`, counted by
// the members used), dynamic `import()` and `import('…').Type` in type positions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

const CORE = resolve('src/core');
const INDEX = join(CORE, 'index.ts');
/** Stands for "every name": a namespace or module object used whole (passed on, spread, indexed). */
const ALL = '*';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts|cts)$/.test(name) ? [path] : [];
  });
}

/** The names index.ts exports; it only re-exports by name, so the list is the surface. */
function surfaceNames(source: string): string[] {
  const sf = ts.createSourceFile('index.ts', source, ts.ScriptTarget.ES2022, true);
  const names: string[] = [];
  for (const statement of sf.statements) {
    const clause = ts.isExportDeclaration(statement) ? statement.exportClause : undefined;
    if (!clause || !ts.isNamedExports(clause)) {
      throw new Error(`src/core/index.ts: only \`export { … } from './…'\` keeps the surface readable: ${statement.getText(sf)}`);
    }
    names.push(...clause.elements.map((e) => e.name.text));
  }
  return names;
}

/** The names `file` (its text `source`) takes from the module for which `isSurface(specifier)` holds. */
function namesImported(file: string, source: string, isSurface: (specifier: string) => boolean): Set<string> {
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true, kind);
  const names = new Set<string>();
  const namespaces = new Set<string>();
  const fromSurface = (node: ts.Node | undefined): boolean => !!node && ts.isStringLiteralLike(node) && isSurface(node.text);

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && fromSurface(node.moduleSpecifier)) {
      const clause = node.importClause;
      if (clause?.name) names.add('default');
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
      else if (bindings) for (const e of bindings.elements) names.add((e.propertyName ?? e.name).text);
    } else if (ts.isExportDeclaration(node) && fromSurface(node.moduleSpecifier)) {
      const clause = node.exportClause;
      if (clause && ts.isNamedExports(clause)) for (const e of clause.elements) names.add((e.propertyName ?? e.name).text);
      else names.add(ALL);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && fromSurface(node.arguments[0])) {
      dynamicImport(node);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && fromSurface(node.argument.literal)) {
      const q = node.qualifier;
      names.add(!q ? ALL : ts.isIdentifier(q) ? q.text : leftmost(q));
    }
    ts.forEachChild(node, visit);
  };
  // `const { a, b } = await import('…')`, `(await import('…')).a`, `const core = await import('…')`.
  const dynamicImport = (call: ts.CallExpression): void => {
    let parent = call.parent;
    while (ts.isAwaitExpression(parent) || ts.isParenthesizedExpression(parent)) parent = parent.parent;
    if (ts.isVariableDeclaration(parent) && ts.isObjectBindingPattern(parent.name)) {
      for (const e of parent.name.elements) {
        const key = e.propertyName ?? e.name;
        names.add(e.dotDotDotToken || !ts.isIdentifier(key) ? ALL : key.text);
      }
    } else if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) namespaces.add(parent.name.text);
    else if (ts.isPropertyAccessExpression(parent)) names.add(parent.name.text);
    else names.add(ALL);
  };
  visit(sf);

  // A namespace counts the members read from it (`core.x`, `core.T` in a type); any other use counts as all.
  const visitNamespaceUses = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && namespaces.has(node.text) && !isDeclarationName(node)) {
      const p = node.parent;
      if (ts.isPropertyAccessExpression(p) && p.expression === node) names.add(p.name.text);
      else if (ts.isQualifiedName(p) && p.left === node) names.add(p.right.text);
      else names.add(ALL);
    }
    ts.forEachChild(node, visitNamespaceUses);
  };
  if (namespaces.size > 0) visitNamespaceUses(sf);
  return names;
}

function leftmost(name: ts.QualifiedName): string {
  return ts.isIdentifier(name.left) ? name.left.text : leftmost(name.left);
}

function isDeclarationName(node: ts.Identifier): boolean {
  const p = node.parent;
  return (ts.isNamespaceImport(p) || ts.isVariableDeclaration(p)) && p.name === node;
}

/** Does `specifier`, written in `file`, name src/core/index.ts? */
function namesCoreIndex(file: string, specifier: string): boolean {
  if (!specifier.startsWith('.')) return false;
  const target = resolve(dirname(file), specifier).replace(/\.(js|ts)$/, '');
  return target === CORE || target === join(CORE, 'index');
}

/** Every name imported from src/core/index.ts by a file under src/ outside src/core, with who imports it. */
function surfaceUsers(): Map<string, string[]> {
  const users = new Map<string, string[]>();
  const outsideCore = sourceFiles(resolve('src')).filter((f) => !f.startsWith(CORE + '/') && !f.startsWith(CORE + '\\'));
  for (const file of outsideCore) {
    for (const name of namesImported(file, readFileSync(file, 'utf8'), (s) => namesCoreIndex(file, s))) {
      users.set(name, [...(users.get(name) ?? []), file]);
    }
  }
  return users;
}

test('src/core/index.ts exports only names that code under src/ outside core imports from it', () => {
  const exported = surfaceNames(readFileSync(INDEX, 'utf8'));
  const users = surfaceUsers();
  assert.ok(!users.has(ALL), `import every name of src/core/index.ts by name, not whole: ${users.get(ALL)?.join(', ')}`);
  const unused = exported.filter((name) => !users.has(name));
  assert.deepEqual(
    unused,
    [],
    'src/core/index.ts exports names no file under src/ outside core imports. Remove them from index.ts; ' +
      'tests, the bench and scripts import them from their module under src/core/ instead.',
  );
  assert.equal(new Set(exported).size, exported.length, 'src/core/index.ts exports a name twice');
});

test('the surface check reads every form of import', () => {
  const isCore = (s: string) => s === '../core';
  const read = (source: string) => [...namesImported('x.ts', source, isCore)].sort();
  assert.deepEqual(read(`import { a, b as c } from '../core'; import { z } from './other';`), ['a', 'b']);
  assert.deepEqual(read(`import type { T } from '../core'; import { type U, v } from '../core';`), ['T', 'U', 'v']);
  assert.deepEqual(read(`export { a, b as c } from '../core'; export type { T } from '../core';`), ['T', 'a', 'b']);
  assert.deepEqual(read(`export * from '../core';`), [ALL]);
  assert.deepEqual(read(`export * as core from '../core';`), [ALL]);
  assert.deepEqual(read(`import * as core from '../core'; core.a(); let t: core.T; let u: core.N.Inner;`), ['N', 'T', 'a']);
  assert.deepEqual(read(`import * as core from '../core'; use(core);`), [ALL]);
  assert.deepEqual(read(`const { a, b: c } = await import('../core'); const d = (await import('../core')).d;`), ['a', 'b', 'd']);
  assert.deepEqual(read(`const core = await import('../core'); core.a();`), ['a']);
  assert.deepEqual(read(`let t: import('../core').T; let u: typeof import('../core');`), ['*', 'T']);
  assert.deepEqual(read(`import def from '../core';`), ['default']);
});

test('the surface is read from named re-exports only', () => {
  assert.deepEqual(surfaceNames(`export { a, type T } from './a';\nexport type { U } from './b';`), ['a', 'T', 'U']);
  assert.throws(() => surfaceNames(`export * from './a';`), /only `export \{ … \} from/);
  assert.throws(() => surfaceNames(`export const a = 1;`), /only `export \{ … \} from/);
});

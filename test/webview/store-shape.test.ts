// Both webviews have one shape (DESIGN.md): one host connection, one store with a method per user
// action, components that only render. Checked on the source: a store and everything it imports stay
// out of components/ (the store never depends on what renders it), both apps reach their store through
// the shared context and start through the shared mount, and both format figures with the one shared
// format module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(import.meta.dirname ?? __dirname, '../..');
const WEBVIEW = join(ROOT, 'webview');
const APPS = ['chat', 'inspector'];

/** Relative module specifiers a file imports or re-exports (static and dynamic). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) specs.push(m[1]!);
  return specs.filter((s) => s.startsWith('.'));
}

function resolveModule(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Every webview module `entry` reaches through relative imports (itself included), as paths under webview/. */
function webviewClosure(entry: string): string[] {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of importsOf(file)) {
      const target = resolveModule(file, spec);
      assert.ok(target, `${relative(ROOT, file)} imports ${spec}, which does not resolve`);
      if (target.startsWith(WEBVIEW + sep)) queue.push(target);
    }
  }
  return [...seen].map((f) => relative(WEBVIEW, f).split(sep).join('/')).sort();
}

const isComponent = (path: string) => path.split('/').includes('components') || path.endsWith('.tsx');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

for (const app of APPS) {
  test(`the ${app} store imports no component, directly or through the modules it uses`, () => {
    const reached = webviewClosure(join(WEBVIEW, app, 'store.ts'));
    // Not vacuous: the store's own state modules and the shared store shape are reached.
    assert.ok(reached.includes(`${app}/store.ts`) && reached.includes('shared/storeContext.ts'), reached.join(', '));
    assert.deepEqual(
      reached.filter(isComponent),
      [],
      `${app}/store.ts reaches components (a store must not depend on what renders it): ${reached.join(', ')}`,
    );
  });

  test(`the ${app} app has the one webview shape: a store class of the shared shape, reached through the shared context, started by the shared mount`, () => {
    const store = readFileSync(join(WEBVIEW, app, 'store.ts'), 'utf8');
    assert.match(store, /export class \w+Store implements WebviewStore</);
    const context = readFileSync(join(WEBVIEW, app, 'context.ts'), 'utf8');
    assert.match(context, /createStoreContext</);
    const main = readFileSync(join(WEBVIEW, app, 'main.tsx'), 'utf8');
    assert.match(main, /mountWebview\(/);
    // The app takes its store from the context, not as a prop.
    assert.match(readFileSync(join(WEBVIEW, app, 'App.tsx'), 'utf8'), /export function App\(\)/);
  });
}

test('the webviews format figures with the one shared format module (one locale)', () => {
  const formatModules = sourceFiles(WEBVIEW)
    .map((f) => relative(WEBVIEW, f).split(sep).join('/'))
    .filter((f) => /(^|\/)format\.tsx?$/.test(f));
  assert.deepEqual(formatModules, ['shared/format.ts']);
  const locales = sourceFiles(WEBVIEW).flatMap((f) =>
    [...readFileSync(f, 'utf8').matchAll(/\b(?:NumberFormat|DateTimeFormat|toLocale\w*String)\(\s*([^,)]*)/g)].map(
      (m) => `${relative(WEBVIEW, f).split(sep).join('/')}: ${m[1]}`,
    ),
  );
  // Every number and time formatter names the one locale (none falls back to the machine's).
  assert.deepEqual(locales, ['shared/format.ts: LOCALE', 'shared/format.ts: LOCALE']);
});

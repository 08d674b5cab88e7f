// The one table of layers (layers.json at the repository root), read by eslint.config.mjs (import rules),
// test/core/moduleGraph.test.ts (the real module graph) and README.md's layout section (rendered here).
//   node scripts/layers.mjs --write-readme    re-renders README.md's layout section from the table
import { readFileSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const LAYOUT_BEGIN = '<!-- layout:begin -->';
export const LAYOUT_END = '<!-- layout:end -->';
const BUILTINS = new Set(builtinModules);

/** @returns {import("./layers.d.mts").Layer[]} */
export function readLayers() {
  const table = JSON.parse(readFileSync(join(ROOT, 'layers.json'), 'utf8'));
  const names = new Set(table.layers.map((l) => l.name));
  for (const layer of table.layers) {
    for (const m of layer.mayImport) {
      if (!names.has(m)) throw new Error(`layers.json: layer "${layer.name}" may import "${m}", which is not a layer`);
    }
  }
  return table.layers;
}

/** The layer a repository path (forward slashes, relative to the root) belongs to, or undefined. */
export function layerOf(path, layers = readLayers()) {
  const p = path.split('\\').join('/');
  return layers.find((l) => (l.entryPoints ?? []).includes(p) || l.folders.some((f) => p.startsWith(`${f}/`)));
}

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|jsx)$/;
const stripSource = (p) => p.replace(SOURCE, '');

/** What is wrong with `importer` (a repository path) importing `specifier`, by the table; undefined when nothing. */
export function importViolation(importer, specifier, layers = readLayers()) {
  const from = layerOf(importer, layers);
  if (!from) return undefined;
  if (specifier === 'vscode') {
    return from.vscode
      ? undefined
      : `layers.json: only ${layers
          .filter((l) => l.vscode)
          .map((l) => l.name)
          .join(', ')} may import vscode (this file is in ${from.name})`;
  }
  if (from.browser && (specifier.startsWith('node:') || BUILTINS.has(specifier.split('/')[0]))) {
    return `layers.json: ${from.name} runs in a browser: no Node modules (${specifier})`;
  }
  if (!specifier.startsWith('.')) return undefined;
  const target = posix.normalize(posix.join(posix.dirname(importer.split('\\').join('/')), specifier));
  const to = layerOf(target, layers) ?? layerOf(`${target}/index.ts`, layers);
  if (!to) {
    const inSource = layers.some((l) => l.folders.some((f) => target.startsWith(`${f.split('/')[0]}/`)));
    return inSource ? `layers.json: ${specifier} is outside every layer` : undefined;
  }
  if (to !== from && !from.mayImport.includes(to.name)) {
    return `layers.json: ${from.name} may import ${from.mayImport.join(', ') || 'no other layer'}; not ${to.name} (${specifier})`;
  }
  if (to !== from && to.publicSurface) {
    const door = stripSource(to.publicSurface);
    const folder = to.folders[0];
    if (stripSource(target) !== door && target !== folder) {
      return `import the engine through its public surface (${to.publicSurface}), not its internals (${specifier}); only tests and the bench may`;
    }
  }
  return undefined;
}

/** An ESLint plugin with one rule, `layers/imports`: every import and file of src/ and webview/ checked against the table. */
export function layersPlugin(root = ROOT) {
  const layers = readLayers();
  const rel = (file) => relative(root, file).split('\\').join('/');
  const rule = {
    meta: { type: 'problem', schema: [], docs: { description: 'imports follow layers.json' } },
    create(context) {
      const file = rel(context.filename);
      const check = (node, source) => {
        if (!source || typeof source.value !== 'string') return;
        const problem = importViolation(file, source.value, layers);
        if (problem) context.report({ node: source, message: problem });
      };
      return {
        Program(node) {
          if (!layerOf(file, layers))
            context.report({ node, loc: { line: 1, column: 0 }, message: `layers.json: ${file} is outside every layer` });
        },
        ImportDeclaration: (node) => check(node, node.source),
        ExportNamedDeclaration: (node) => check(node, node.source),
        ExportAllDeclaration: (node) => check(node, node.source),
        ImportExpression: (node) => check(node, node.source),
        TSImportEqualsDeclaration: (node) => check(node, node.moduleReference?.expression),
        CallExpression: (node) => {
          if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node, node.arguments[0]);
        },
      };
    },
  };
  return { rules: { imports: rule } };
}

/** README.md's layout section: the table as markdown. */
export function renderLayout(layers = readLayers()) {
  const rows = layers.map((l) => {
    const where = [...l.folders.map((f) => `\`${f}/\``), ...(l.entryPoints ?? []).map((e) => `\`${e}\``)].join(', ');
    const may = l.mayImport.length ? l.mayImport.join(', ') : '(nothing)';
    return `| ${l.name} | ${where} | ${may} | ${l.about} |`;
  });
  return [
    'Generated from [layers.json](layers.json) (`node scripts/layers.mjs --write-readme`); ESLint and the module-graph test',
    'enforce the same table. A layer imports only the layers it lists; a source file outside every layer fails the tests.',
    '',
    '| layer | where | may import | what |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** README.md with its layout section re-rendered (throws when the markers are missing). */
export function readmeWithLayout(readme, layers = readLayers()) {
  const begin = readme.indexOf(LAYOUT_BEGIN);
  const end = readme.indexOf(LAYOUT_END);
  if (begin < 0 || end < begin) throw new Error(`README.md: the layout section needs the lines ${LAYOUT_BEGIN} and ${LAYOUT_END}`);
  return `${readme.slice(0, begin + LAYOUT_BEGIN.length)}\n${renderLayout(layers)}\n${readme.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--write-readme')) {
  const path = join(ROOT, 'README.md');
  writeFileSync(path, readmeWithLayout(readFileSync(path, 'utf8')));
  console.log('README.md: layout section written from layers.json');
}

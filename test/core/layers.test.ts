// layers.json is the one table of layers: ESLint's `layers/imports` rule (scripts/layers.mjs) names the
// offending import line by it, and README.md's layout section is rendered from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ESLint } from 'eslint';
import { importViolation, readLayers, readmeWithLayout } from '../../scripts/layers.mjs';

test('the import rule allows what the table lists and names what it does not', () => {
  const cases: [string, string, RegExp | undefined][] = [
    ['src/agent/loop/agent.ts', '../../core', undefined],
    ['src/agent/loop/agent.ts', '../../settings/hostSettings', undefined],
    ['src/core/pipeline/plan.ts', '../ledger/ledger', undefined],
    ['src/cli.ts', './cli/main', undefined],
    ['webview/chat/App.tsx', '../../src/protocol', undefined],
    ['webview/chat/App.tsx', '../shared/format', undefined],
    ['src/agent/loop/agent.ts', '../../core/pipeline/plan', /public surface \(src\/core\/index\.ts\)/],
    ['src/agent/loop/agent.ts', '../../extension/chatView', /agent may import core, settings, protocol, inspector; not extension/],
    ['src/cli/main.ts', '../extension/settings', /cli may import .*; not extension/],
    ['src/settings/x.ts', '../agent/loop/promptCache', /settings may import core; not agent/],
    ['src/core/pipeline/plan.ts', 'vscode', /only extension may import vscode/],
    ['webview/chat/App.tsx', 'node:fs', /browser: no Node modules/],
    ['webview/chat/App.tsx', 'path', /browser: no Node modules/],
    ['webview/chat/App.tsx', '../../src/agent/loop/agent', /webview may import protocol; not agent/],
    ['src/agent/x.ts', '../stray', /outside every layer/],
  ];
  for (const [file, spec, expected] of cases) {
    const v = importViolation(file, spec);
    if (expected) assert.match(v ?? '(allowed)', expected, `${file} imports ${spec}`);
    else assert.equal(v, undefined, `${file} imports ${spec}`);
  }
});

test('ESLint reports a layer violation and a file outside every layer on the line, through the project config', async () => {
  const eslint = new ESLint();
  const [upward] = await eslint.lintText("import { x } from '../../extension/chatView';\nexport const y = x;\n", {
    filePath: 'src/agent/loop/probe.ts',
  });
  assert.ok(
    upward.messages.some((m) => m.ruleId === 'layers/imports' && m.line === 1 && /not extension/.test(m.message)),
    JSON.stringify(upward.messages),
  );
  const [stray] = await eslint.lintText('export const z = 1;\n', { filePath: 'src/stray.ts' });
  assert.ok(
    stray.messages.some((m) => m.ruleId === 'layers/imports' && /src\/stray\.ts is outside every layer/.test(m.message)),
    JSON.stringify(stray.messages),
  );
});

test("README.md's layout section is the table rendered (node scripts/layers.mjs --write-readme)", () => {
  const readme = readFileSync('README.md', 'utf8');
  assert.equal(readme, readmeWithLayout(readme), 'README.md is out of date with layers.json: run node scripts/layers.mjs --write-readme');
  for (const layer of readLayers()) assert.ok(readme.includes(`| ${layer.name} |`), layer.name);
});

test('the table is consistent: every layer it lists exists, every layer has folders and says what it is', () => {
  const layers = readLayers();
  assert.deepEqual(
    layers.map((l) => l.name),
    ['core', 'settings', 'protocol', 'inspector', 'agent', 'cli', 'extension', 'webview'],
  );
  for (const l of layers) {
    assert.ok(l.folders.length > 0 && l.about.length > 10, l.name);
    // Never back up: a layer lists only layers above it in the table.
    for (const m of l.mayImport) assert.ok(layers.findIndex((x) => x.name === m) < layers.indexOf(l), `${l.name} -> ${m}`);
  }
});

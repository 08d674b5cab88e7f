// The command glue of "Splitpoint: Apply Tuned Settings…" (src/extension/applyTunedSettings.ts) with
// `vscode` resolved to the bench's stub: a block from the clipboard is checked and its changes written to
// the user (global) settings once accepted; a bad key is shown naming it and nothing is written; a
// cancelled confirmation writes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVscodeStub } from '../../bench/children/vscodeStub';

const REPO = join(import.meta.dirname ?? __dirname, '..', '..');
const STUB_ID = join(tmpdir(), '__splitpoint_test_vscode_stub_apply__.js');

type Stub = Record<string, Record<string, unknown>>;

function commandWith(clipboard: string, answer: string | undefined, user: Record<string, unknown>) {
  const stub = createVscodeStub(REPO, join(tmpdir(), 'sp-apply-ws')) as Stub;
  const written: Array<{ key: string; value: unknown; target: unknown }> = [];
  const errors: string[] = [];
  const modals: string[] = [];
  let command: (() => Promise<string[]>) | undefined;
  stub.commands.registerCommand = (_id: string, fn: () => Promise<string[]>) => {
    command = fn;
    return { dispose: () => undefined };
  };
  stub.window.showQuickPick = async (items: Array<{ id?: string }>) => items.find((i) => i.id === 'clipboard');
  stub.window.showInformationMessage = async (message: string, options?: { modal?: boolean; detail?: string }) => {
    if (options?.modal) modals.push(`${message}\n${options.detail}`);
    return options?.modal ? answer : undefined;
  };
  stub.window.showErrorMessage = async (m: string) => void errors.push(m);
  (stub.env as { clipboard: unknown }).clipboard = { readText: async () => clipboard };
  stub.workspace.getConfiguration = () => ({
    inspect: (key: string) => ({ key, globalValue: user[key] }),
    update: async (key: string, value: unknown, target: unknown) => void written.push({ key, value, target }),
  });
  const M = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string; _cache: Record<string, unknown> };
  const resolve = M._resolveFilename;
  M._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
    return request === 'vscode' ? STUB_ID : resolve.call(this, request, ...rest);
  };
  M._cache[STUB_ID] = { id: STUB_ID, filename: STUB_ID, loaded: true, exports: stub, children: [], paths: [] };
  for (const file of Object.keys(M._cache)) if (file.startsWith(join(REPO, 'src', 'extension'))) delete M._cache[file];
  try {
    const mod = createRequire(join(REPO, 'package.json'))('./src/extension/applyTunedSettings.ts') as {
      ApplyTunedSettings: new (log: { info(m: string): void }) => { dispose(): void };
    };
    new mod.ApplyTunedSettings({ info: () => undefined });
  } finally {
    M._resolveFilename = resolve;
  }
  return { run: () => command!(), written, errors, modals, global: (stub.ConfigurationTarget as { Global: unknown }).Global };
}

const BLOCK = '{\n  "splitpoint.autoCompact.threshold": 0.7,\n  "splitpoint.microCompact.keepRecent": 3\n}';

test('accepted: the changes are listed, and written to the user settings (a value already set is left out)', async () => {
  const c = commandWith(`best: $50\n\n${BLOCK}\n`, 'Apply All', { 'splitpoint.microCompact.keepRecent': 3 });
  assert.deepEqual(await c.run(), ['splitpoint.autoCompact.threshold']);
  assert.deepEqual(c.written, [{ key: 'splitpoint.autoCompact.threshold', value: 0.7, target: c.global }]);
  assert.equal(c.modals.length, 1);
  assert.match(c.modals[0], /splitpoint\.autoCompact\.threshold: 0\.6 \(default\) → 0\.7/);
  assert.deepEqual(c.errors, []);
});

test('a bad key is shown naming it, and nothing is written; a cancelled confirmation writes nothing', async () => {
  const bad = commandWith('{"splitpoint.autoCompact.threshold": 7}', 'Apply All', {});
  assert.deepEqual(await bad.run(), []);
  assert.deepEqual(bad.written, []);
  assert.match(bad.errors[0], /the clipboard: splitpoint\.autoCompact\.threshold: must be at most 0\.99, got 7/);
  const cancelled = commandWith(BLOCK, undefined, {});
  assert.deepEqual(await cancelled.run(), []);
  assert.deepEqual(cancelled.written, []);
  assert.equal(cancelled.modals.length, 1);
});

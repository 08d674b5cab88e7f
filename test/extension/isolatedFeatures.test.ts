// One feature that throws while activating does not take the others down: the extension's real
// activate() (src/extension/extension.ts) runs in this process with `vscode` resolved to the bench's
// stub (bench/children/vscodeStub.ts), one VS Code call made to throw for one feature. The failure is
// shown naming that feature; the other features' commands and the chat view work, and a chat button
// that needs the failed feature says it is not available.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExtensionContext, createVscodeStub } from '../../bench/children/vscodeStub';
import { PROPOSAL_SCHEME } from '../../src/extension/reviewUris';

const REPO = join(import.meta.dirname ?? __dirname, '..', '..');
const STUB_ID = join(tmpdir(), '__splitpoint_test_vscode_stub__.js');

type Listener = (e: unknown) => unknown;
type Command = (...args: unknown[]) => unknown;
interface Subscriptions {
  subscriptions: Array<{ dispose(): unknown }>;
}

/** A chat webview view: what the extension posts to it, and a way to send it a message. */
function fakeWebviewView() {
  const listeners = new Set<Listener>();
  const posted: Array<{ type: string }> = [];
  const none = () => ({ dispose: () => undefined });
  const view = {
    visible: true,
    show: () => undefined,
    onDidChangeVisibility: none,
    onDidDispose: none,
    webview: {
      options: {},
      html: '',
      cspSource: 'vscode-webview:',
      asWebviewUri: (u: unknown) => u,
      postMessage: async (m: { type: string }) => void posted.push(m),
      onDidReceiveMessage: (l: Listener) => {
        listeners.add(l);
        return { dispose: () => listeners.delete(l) };
      },
    },
  };
  return { view, posted, send: (msg: unknown) => [...listeners].forEach((l) => l(msg)) };
}

/** Activates the extension's source with the stub; `breakIt` makes one VS Code call throw. */
function activateWith(breakIt: (vscode: Record<string, Record<string, unknown>>) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'sp-isolated-'));
  const stub = createVscodeStub(REPO, join(dir, 'ws')) as Record<string, Record<string, unknown>>;
  const commands = new Map<string, Command>();
  const errors: string[] = [];
  const views = new Map<string, { resolveWebviewView(view: unknown): void }>();
  stub.commands.registerCommand = (id: string, fn: Command) => {
    commands.set(id, fn);
    return { dispose: () => commands.delete(id) };
  };
  stub.commands.executeCommand = async (id: string, ...args: unknown[]) => commands.get(id)?.(...args);
  stub.window.showErrorMessage = async (m: string) => void errors.push(m);
  stub.window.registerWebviewViewProvider = (id: string, provider: { resolveWebviewView(view: unknown): void }) => {
    views.set(id, provider);
    return { dispose: () => views.delete(id) };
  };
  breakIt(stub);

  const M = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string; _cache: Record<string, unknown> };
  const resolve = M._resolveFilename;
  M._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
    return request === 'vscode' ? STUB_ID : resolve.call(this, request, ...rest);
  };
  M._cache[STUB_ID] = { id: STUB_ID, filename: STUB_ID, loaded: true, exports: stub, children: [], paths: [] };
  // A fresh load of the sources, so that they import this run's stub.
  for (const file of Object.keys(M._cache)) if (file.startsWith(join(REPO, 'src'))) delete M._cache[file];
  const context = createExtensionContext(REPO, join(dir, 'storage')) as unknown as Subscriptions;
  const ext = createRequire(join(REPO, 'package.json'))('./src/extension/extension.ts') as { activate(c: unknown): void };
  ext.activate(context);
  return {
    commands,
    errors,
    secrets: (context as unknown as { secrets: { get(key: string): Promise<string | undefined> } }).secrets,
    views,
    dispose: () => {
      for (const d of context.subscriptions) d.dispose();
      M._resolveFilename = resolve;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test('activating with the diff review failing: it is reported by name, the other features and the chat work', async (t) => {
  const run = activateWith((vscode) => {
    const register = vscode.workspace.registerTextDocumentContentProvider as (scheme: string) => unknown;
    vscode.workspace.registerTextDocumentContentProvider = (scheme: string) => {
      if (scheme === PROPOSAL_SCHEME) throw new Error(`the ${scheme} scheme is taken`);
      return register(scheme);
    };
  });
  t.after(run.dispose);

  assert.equal(run.errors.length, 1, run.errors.join('\n'));
  assert.match(run.errors[0], /^Splitpoint: Diff review failed to start \(the splitpoint-proposal scheme is taken\)\./);
  assert.equal(run.commands.has('splitpoint.openProposal'), false, 'the diff review threw before registering its commands');
  for (const id of [
    'splitpoint.setApiKey',
    'splitpoint.openInspector',
    'splitpoint.restoreFiles',
    'splitpoint.newChat',
    'splitpoint.applySummary',
    'splitpoint.pickModel',
    'splitpoint.restartMcpServers',
  ])
    assert.ok(run.commands.has(id), `${id} is registered`);

  const chat = run.views.get('splitpoint.chat');
  assert.ok(chat, 'the chat view is registered');
  const webview = fakeWebviewView();
  chat.resolveWebviewView(webview.view);
  webview.send({ type: 'ready' });
  await new Promise((r) => setTimeout(r, 50));
  const types = webview.posted.map((m) => m.type);
  for (const type of ['state', 'pins', 'proposals']) assert.ok(types.includes(type), `the chat got '${type}' (${types.join(', ')})`);

  webview.send({ type: 'openDiff', toolUseId: 'toolu_1' });
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(run.errors.length, 2);
  assert.match(run.errors[1], /^Splitpoint: Diff review is not available: it failed to start/);
});

test('activating with the chat view failing: it is reported by name, and the other features work', async (t) => {
  const key = 'sk-ant-test-0123456789';
  const run = activateWith((vscode) => {
    vscode.window.registerWebviewViewProvider = () => {
      throw new Error('no view container');
    };
    vscode.window.showInputBox = async () => key;
  });
  t.after(run.dispose);

  assert.equal(run.errors.length, 1, run.errors.join('\n'));
  assert.match(run.errors[0], /^Splitpoint: Chat view failed to start \(no view container\)\./);
  for (const id of ['splitpoint.openInspector', 'splitpoint.newChat', 'splitpoint.restoreFiles', 'splitpoint.pickModel'])
    assert.ok(run.commands.has(id), `${id} is registered`);
  await run.commands.get('splitpoint.setApiKey')?.();
  assert.equal(await run.secrets.get('splitpoint.anthropicApiKey'), key, 'the API key command stored the key');
  assert.equal(run.errors.length, 1);
});

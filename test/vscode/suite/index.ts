// Integration tests inside a VS Code extension host (`npm run test:vscode`, through
// @vscode/test-electron). test/vscode/runTest.mjs bundles this file with esbuild (`vscode` external)
// and VS Code calls `run()`, which must reject if any test failed. No mocha: a tiny sequential runner.
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { DEFAULT_HOST_SETTINGS } from '../../../src/settings/hostSettings';
import { serializeTranscript, parseTranscript, TRANSCRIPT_HEADER_TYPE } from '../../../src/core/transcripts/transcripts';
import type { Message } from '../../../src/core/conversation/conversation';
import { readSettings } from '../../../src/extension/settings';

const EXTENSION_ID = 'splitpoint.splitpoint';

interface Manifest {
  contributes: {
    commands: Array<{ command: string; title: string; category?: string }>;
    views: Record<string, Array<{ id: string; type?: string; name: string }>>;
    viewsContainers: { activitybar: Array<{ id: string; title: string; icon: string }> };
    configuration: { properties: Record<string, { default: unknown }> };
  };
}

type Test = { name: string; fn: () => Promise<void> | void };
const tests: Test[] = [];
const test = (name: string, fn: Test['fn']): void => void tests.push({ name, fn });

function extension(): vscode.Extension<unknown> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is installed in the extension host`);
  return ext;
}
const manifest = (): Manifest => extension().packageJSON as Manifest;

test('the extension activates', async () => {
  const ext = extension();
  await ext.activate();
  assert.equal(ext.isActive, true);
});

test('every contributed command is registered, titled "Splitpoint: …"', async () => {
  const registered = new Set(await vscode.commands.getCommands(true));
  const contributed = manifest().contributes.commands;
  assert.ok(contributed.length >= 10, `${contributed.length} commands contributed`);
  for (const c of contributed) {
    assert.ok(c.command.startsWith('splitpoint.'), `${c.command} is in the splitpoint namespace`);
    assert.equal(c.category, 'Splitpoint', `${c.command} has the Splitpoint category`);
    assert.ok(registered.has(c.command), `${c.command} is registered`);
  }
});

test('settings defaults are readable and match the manifest', () => {
  const config = vscode.workspace.getConfiguration('splitpoint');
  for (const [key, schema] of Object.entries(manifest().contributes.configuration.properties)) {
    const inspected = config.inspect(key.slice('splitpoint.'.length));
    assert.ok(inspected, `${key} is a known setting`);
    assert.deepEqual(inspected.defaultValue, schema.default, `${key} default`);
  }
  // What the extension reads with no user settings is the host's defaults.
  assert.deepEqual(readSettings(), { ...DEFAULT_HOST_SETTINGS, baseUrl: undefined });
});

test('the chat view is contributed to the Splitpoint view container and can be shown', async () => {
  const m = manifest().contributes;
  const container = m.viewsContainers.activitybar.find((c) => c.id === 'splitpoint');
  assert.ok(container, 'the Splitpoint activity bar container');
  assert.equal(container.title, 'Splitpoint');
  const chat = m.views.splitpoint?.find((v) => v.id === 'splitpoint.chat');
  assert.ok(chat, 'splitpoint.chat is in the container');
  assert.equal(chat.type, 'webview');
  // VS Code generates a focus command per view; it resolves the webview view.
  await vscode.commands.executeCommand('splitpoint.chat.focus');
});

test('a transcript opens as a text document and reads back exactly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'splitpoint-vscode-test-'));
  const messages: Message[] = [
    { id: 'u1', role: 'user', content: 'Read greeting.ts' },
    { id: 'a1', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'greeting.ts' } }] },
    { id: 'r1', role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: "export const greeting = 'hi';" }] },
    { id: 'a2', role: 'assistant', content: [{ type: 'text', text: 'It exports greeting.' }] },
  ];
  const path = join(dir, `transcript_${Date.now()}_chat_test.jsonl`);
  writeFileSync(
    path,
    serializeTranscript(
      {
        type: TRANSCRIPT_HEADER_TYPE,
        version: 1,
        sessionId: 'chat_test',
        createdAt: Date.now(),
        reason: 'compaction: test',
        messageCount: messages.length,
      },
      messages,
    ),
  );
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
  const editor = await vscode.window.showTextDocument(doc, { preview: false });
  assert.equal(editor.document.uri.fsPath, path);
  assert.equal(doc.lineCount, messages.length + 2, 'a header line, one line per message, a final newline');
  const parsed = parseTranscript(doc.getText(), path);
  assert.deepEqual(parsed.errors, []);
  assert.deepEqual(parsed.messages, messages);

  // The command opens only transcripts this session wrote: an arbitrary path is refused.
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  const other = join(dir, 'not-a-transcript.jsonl');
  writeFileSync(other, '{}\n');
  await vscode.commands.executeCommand('splitpoint.openTranscript', other);
  assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath === other, false, 'an unknown path is not opened');
});

export interface SuiteReport {
  passed: string[];
  failed: Array<{ name: string; error: string }>;
}

/**
 * Called by VS Code in the extension host. Rejects when a test failed (that is what fails the run);
 * resolves with the report, for hosts that run the suite themselves (test/e2e/extensionHost.e2e.test.ts).
 */
export async function run(): Promise<SuiteReport> {
  const report: SuiteReport = { passed: [], failed: [] };
  for (const t of tests) {
    const started = Date.now();
    try {
      await t.fn();
      report.passed.push(t.name);
      console.log(`  ✔ ${t.name} (${Date.now() - started} ms)`);
    } catch (e) {
      const error = e instanceof Error ? (e.stack ?? e.message) : String(e);
      report.failed.push({ name: t.name, error });
      console.error(`  ✖ ${t.name}\n${error}`);
    }
  }
  console.log(`${report.passed.length} passed, ${report.failed.length} failed`);
  if (report.failed.length > 0) {
    throw new Error(
      `${report.failed.length} of ${tests.length} VS Code integration tests failed:\n${report.failed.map((f) => `✖ ${f.name}\n${f.error}`).join('\n')}`,
    );
  }
  return report;
}

// The approval card in headless Chromium: invisible and bidi characters in a command or path are
// shown escaped and flag the card; a host warning (a file that tooling executes) is shown explicitly.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatItem } from '../../src/protocol';
import { chatState } from './fixtures';
import { WebviewHarness } from './harness';

describe('approval card', () => {
  let h: WebviewHarness;
  before(async () => {
    h = await WebviewHarness.start();
  });
  after(async () => {
    await h?.close();
  });

  test('a command with bidi controls shows them escaped and the card carries a warning', async () => {
    const command = 'echo listing \u202E; touch pwned # \u2066 list files';
    const items: ChatItem[] = [
      { kind: 'tool', id: 'tu_bidi', name: 'run_command', input: JSON.stringify({ command }), status: 'awaiting-approval', command },
      { kind: 'tool', id: 'tu_plain', name: 'run_command', input: '{"command":"ls"}', status: 'awaiting-approval', command: 'ls' },
    ];
    const p = await h.open();
    await p.deliver({ type: 'state', state: chatState(items) });
    await p.settle();
    const card = p.page.locator('article.card', { has: p.page.getByRole('button', { name: 'Approve run_command' }) }).first();
    const shown = (await card.locator('pre.command').textContent()) ?? '';
    assert.equal(shown, 'echo listing <U+202E>; touch pwned # <U+2066> list files');
    const header = (await card.locator('.tool-summary').textContent()) ?? '';
    assert.doesNotMatch(header, /[\u202E\u2066]/);
    const warning = card.locator('.invisible-warning');
    assert.equal(await warning.count(), 1);
    assert.match((await warning.textContent()) ?? '', /2 invisible or bidirectional/);
    assert.equal(await warning.getAttribute('role'), 'alert');
    const plain = p.page.locator('article.card').nth(1);
    assert.equal(await plain.locator('.invisible-warning').count(), 0);
    assert.equal((await plain.locator('pre.command').textContent()) ?? '', 'ls');
  });

  test('a path with a zero-width character is escaped in the diff header; a host warning is shown', async () => {
    const path = 'src/a\u200B.ts';
    const items: ChatItem[] = [
      {
        kind: 'tool',
        id: 'tu_path',
        name: 'write_file',
        input: JSON.stringify({ path, content: 'x' }),
        status: 'awaiting-approval',
        diff: { path, unified: `--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+x\n`, isNewFile: true },
        warning: '.vscode/tasks.json is executable configuration: VS Code runs its tasks.',
      },
    ];
    const p = await h.open();
    await p.deliver({ type: 'state', state: chatState(items) });
    await p.settle();
    const card = p.page.locator('article.card').first();
    const text = (await card.textContent()) ?? '';
    assert.doesNotMatch(text, /\u200B/);
    assert.match(text, /src\/a<U\+200B>\.ts/);
    assert.equal(await card.locator('.invisible-warning').count(), 1);
    const exec = card.locator('.exec-warning');
    assert.match((await exec.textContent()) ?? '', /executable configuration/);
  });

  test('an MCP tool card names its server and offers Always allow, which posts approve with alwaysAllow', async () => {
    const items: ChatItem[] = [
      {
        kind: 'tool',
        id: 'tu_mcp',
        name: 'mcp__everything__echo',
        input: '{"message":"hi"}',
        status: 'awaiting-approval',
        server: 'everything',
      },
      { kind: 'tool', id: 'tu_cmd', name: 'run_command', input: '{"command":"ls"}', status: 'awaiting-approval', command: 'ls' },
    ];
    const p = await h.open();
    await p.deliver({ type: 'state', state: chatState(items) });
    await p.settle();
    const card = p.page.locator('article.card').first();
    assert.equal((await card.locator('.mcp-badge').textContent())?.trim(), 'MCP: everything');
    // Only MCP tools can be allow-listed: the command card has no such button.
    assert.equal(await p.page.locator('article.card').nth(1).getByRole('button', { name: 'Always allow' }).count(), 0);
    await card.getByRole('button', { name: 'Always allow' }).click();
    await p.settle();
    assert.deepEqual(await p.intents(), [{ type: 'approve', toolUseId: 'tu_mcp', alwaysAllow: true }]);
  });
});

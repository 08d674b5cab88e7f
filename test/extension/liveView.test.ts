// The inspector's glance strip from a real session (src/extension/liveView.ts): core's liveStatus of
// the import, sent as the protocol's LiveView (the strip's own check accepts it), and that agent's next
// compaction offered as the strategy and parameters of the replay configuration that models it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { importSessionFile, recordedInputTokens } from '../../src/core';
import { agentPreviewOf, liveViewOf } from '../../src/extension/liveView';
import { isLiveView } from '../../src/protocol';

const FIXTURES = join(import.meta.dirname ?? __dirname, '..', 'fixtures', 'real-sessions');

test('a Claude Code session: its status, Claude Code-like recursive summarization to preview, Continue offered', async () => {
  const file = join(FIXTURES, 'claude-code-cipher-box-b.jsonl');
  const result = await importSessionFile(file);
  const view = liveViewOf(file, result, { following: true, gone: false, updatedAt: 1 });
  assert.ok(isLiveView(view), 'the strip accepts it');
  assert.equal(view.status.agent, 'claude-code');
  assert.equal(view.following, true);
  assert.equal(view.canContinue, true);
  // The context now is the recorded usage of the last call (when it came after the last compaction).
  const lastUsage = result.messages.filter((m) => m.usage).at(-1)?.usage;
  assert.ok(lastUsage, 'the fixture records calls');
  assert.equal(view.status.contextTokens, recordedInputTokens(lastUsage));
  assert.deepEqual(view.agentPreview, {
    config: 'claude-code-like',
    label: "Claude Code's next compaction",
    strategy: 'recursive-summarization',
    params: view.agentPreview?.params,
  });
  assert.equal(view.agentPreview?.params.maxEventsToKeep, 1, 'replay-configs/claude-code-like.json');
  assert.equal(view.agentPreview?.params.overlapSize, 0);
  // Sent through postMessage: structured-clone safe, and the same after a JSON round trip.
  assert.deepEqual(JSON.parse(JSON.stringify(view)), view);
});

test('a Codex session previews Codex-like preserve-user-messages; no configuration, no button', async () => {
  const file = join(FIXTURES, 'codex-agentv-a.jsonl');
  const view = liveViewOf(file, await importSessionFile(file), { following: false, gone: true, updatedAt: null });
  assert.ok(isLiveView(view));
  assert.equal(view.status.agent, 'codex');
  assert.equal(view.agentPreview?.strategy, 'preserve-user-messages');
  assert.equal(view.agentPreview?.params.maxUserTokens, 20_000, 'replay-configs/codex-like.json');
  assert.equal(view.agentPreview?.label, "Codex's next compaction");
  assert.equal(agentPreviewOf(null, 'Splitpoint'), null);
  assert.equal(agentPreviewOf('no-such-config', 'X'), null, 'a name the configurations do not know');
});

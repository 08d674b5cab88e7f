// Live command output reaches the chat as throttled deltas, not as the whole card per chunk: 5,000
// output lines make a bounded number of changes (what the chat view is posted) and bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatLog, MAX_CARD_OUTPUT, type ChatLogChange } from '../../src/agent/projections/chatLog';
import { ChatProjector, OUTPUT_THROTTLE_MS } from '../../src/agent/projections/chatProjector';

const runId = 'run_o';

test('5,000 output lines: deltas at most every 100 ms, bytes posted about the output size, the final result replaces it', async () => {
  const log = new ChatLog(undefined);
  const projector = new ChatProjector(log, () => []);
  projector.project({ type: 'tool-call-started', runId, step: 1, index: 0, toolUseId: 'tu_o', name: 'run_command' });
  projector.project({ type: 'tool-running', runId, toolUseId: 'tu_o', name: 'run_command', input: { command: 'make' } });
  const changes: ChatLogChange[] = [];
  log.onDidChange((c) => changes.push(c));

  const started = Date.now();
  let streamed = '';
  for (let batch = 0; batch < 100; batch++) {
    for (let i = 0; i < 50; i++) {
      const line = `${batch * 50 + i}\n`;
      streamed += line;
      projector.project({ type: 'tool-output', runId, toolUseId: 'tu_o', chunk: line });
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  await new Promise((r) => setTimeout(r, OUTPUT_THROTTLE_MS * 2));
  const elapsed = Date.now() - started;
  const posts = changes.length;
  const bytes = changes.reduce((n, c) => n + JSON.stringify(c).length, 0);
  assert.ok(posts <= Math.ceil(elapsed / OUTPUT_THROTTLE_MS) + 2, `${posts} posts in ${elapsed} ms`);
  assert.ok(posts >= 2, 'output is shown while it arrives');
  assert.ok(bytes < 2 * Math.min(streamed.length, MAX_CARD_OUTPUT) + posts * 200, `${bytes} bytes for ${streamed.length} bytes of output`);
  assert.ok(changes.every((c) => c.kind === 'delta'));
  const live = log.get('tu_o');
  assert.ok(live && live.kind === 'tool');
  assert.equal(live.output, streamed.slice(0, MAX_CARD_OUTPUT));

  projector.project({
    type: 'tool-result',
    runId,
    toolUseId: 'tu_o',
    name: 'run_command',
    output: 'the tail\n[Exit code 0]',
    isError: false,
    cancelled: false,
  });
  await new Promise((r) => setTimeout(r, OUTPUT_THROTTLE_MS * 2));
  const done = log.get('tu_o');
  assert.ok(done && done.kind === 'tool');
  assert.equal(done.output, 'the tail\n[Exit code 0]');
  assert.equal(done.status, 'done');
  assert.equal(changes.filter((c) => c.kind === 'delta' && changes.indexOf(c) > posts).length, 0, 'no delta after the result');
});

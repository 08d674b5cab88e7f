// Compaction inside the agent loop (see agentRig.ts): the compact tool compacts after its batch of
// tool calls; auto-compaction runs during one long run with every request still valid; and the
// calibrated counter learns the ratio between the local estimate and the reported usage.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reply } from '../loopback/anthropic-server';
import type { PipelineSettings } from '../../src/core/pipeline/pipeline';
import { budgetTrigger, neverTrigger } from '../../src/core/pipeline/triggers';
import { assertValid, last, quietSettings, rig, toolResultsOf } from './agentRig';

describe('compaction', () => {
  test('the compact tool: the pipeline compacts after the batch, with the focus, and the next request is the compacted history', async () => {
    const settings = quietSettings();
    settings.autoCompact = { enabled: false, strategy: 'sliding-window', params: { maxEvents: 3 }, trigger: neverTrigger };
    const r = await rig({ settings });
    try {
      for (let i = 0; i < 3; i++) {
        r.server.queue.text(`Answer ${i}.`);
        await r.agent.run(`Question ${i}?`);
      }
      r.server.queue.toolUse([
        { name: 'compact', input: { focus: 'keep the add() bug' }, id: 'toolu_c' },
        { name: 'read_file', input: { path: 'src/math.ts' }, id: 'toolu_r' },
      ]);
      r.server.queue.text('Compacted and read.');
      const result = await r.agent.run('Compact, then read math.ts.');
      assert.equal(result.status, 'completed');
      const [compactResult] = toolResultsOf(last(r.sent(4)));
      assert.equal(compactResult.content, 'Compaction requested; it will run after this batch of tool calls.');
      const started = r.of('compaction-started');
      assert.deepEqual(
        started.map((e) => [e.strategy, e.trigger, e.runId]),
        [['sliding-window', 'tool', result.runId]],
      );
      const finished = r.of('compaction-finished');
      assert.equal(finished.length, 1);
      assert.equal(finished[0].record.focus, 'keep the add() bug');
      assert.equal(r.session.meta.compactions[0].trigger, 'tool');
      // Ordering: the compaction ran after both tool results were appended, before the next call.
      const types = r.events.map((e) => e.type);
      assert.ok(types.lastIndexOf('tool-result') < types.indexOf('compaction-started'));
      assert.ok(types.indexOf('compaction-finished') < types.lastIndexOf('request-started'));
      // The request after compaction no longer carries the three earlier turns.
      const before = r.sent(3);
      const after = r.sent(4);
      assert.equal(before.length, 7);
      assert.ok(after.length < before.length, `${after.length} < ${before.length}`);
      assert.match(JSON.stringify(after), /Compact, then read math.ts/);
      assert.equal(JSON.stringify(after).includes('Question 0?'), false);
      assert.ok(r.server.requests.every((q) => q.status === 200));
      assertValid(r.session);
    } finally {
      await r.close();
    }
  });

  test('auto-compaction during one long run (one prompt, many tool calls): compaction events are forwarded and every request stays valid', async () => {
    const settings: PipelineSettings = {
      microCompact: { enabled: true, keepRecent: 1, minChars: 100 },
      autoCompact: { enabled: true, strategy: 'sliding-window', params: { maxEvents: 4 }, trigger: budgetTrigger({ maxTokens: 5_000 }) },
    };
    const r = await rig({ settings, contextWindow: 12_000 });
    try {
      const lines = Array.from({ length: 150 }, (_, i) => `export const value${i} = compute(${i}); // some padding text`);
      writeFileSync(join(r.ws, 'big.ts'), lines.join('\n') + '\n');
      let calls = 0;
      // Explanations accumulate (micro-compaction only replaces old tool results), so the budget trips.
      const note = 'Reading the next part of the file to check every computed value. '.repeat(25);
      r.server.responder = () =>
        ++calls <= 8 ? reply.toolUse('read_file', { path: 'big.ts', start_line: calls }, { text: note }) : reply.text('Read it all.');
      const result = await r.agent.run('Read big.ts eight times.');
      assert.equal(result.status, 'completed');
      assert.equal(result.steps, 9);
      const started = r.of('compaction-started');
      const finished = r.of('compaction-finished');
      assert.ok(started.length >= 1, 'auto-compaction ran');
      assert.equal(started.length, finished.length);
      assert.ok(started.every((e) => e.trigger === 'auto' && e.runId === result.runId));
      assert.equal(r.of('compaction-failed').length, 0);
      assert.ok(
        r.server.requests.every((q) => q.status === 200),
        'every request was valid for the API',
      );
      assert.ok(
        r.server.messageRequests.some((q) => JSON.stringify(q.body.messages).includes('[Previous: used read_file]')),
        'micro-compaction replaced old results in a request',
      );
      assert.ok(r.of('request-started').some((e) => e.truncatedResults > 0));
      // One prompt, so the tail opens with a synthetic message at a tool-exchange boundary.
      assert.ok(r.session.messages[0].synthetic, 'the compacted history opens with a synthetic message');
      assertValid(r.session);
      assert.ok(r.pipeline.currentTokens() < 12_000);
    } finally {
      await r.close();
    }
  });
});

describe('calibration', () => {
  test('calibration learns the ratio between the local estimate and reported usage', async () => {
    const r = await rig({ server: { tokenScale: 2 } });
    try {
      r.server.queue.toolUse('read_file', { path: 'src/math.ts' }).text('ok');
      await r.agent.run('Read it.');
      const usage = r.of('usage');
      assert.equal(usage.length, 2);
      assert.ok(usage.every((u) => u.estimatedInputTokens > 0));
      assert.equal(r.calibration.observations, 2);
      // The server counts 2 × o200k: the fit (prefix + factor × raw) now predicts what it reports.
      const last = usage[1]!;
      const predicted = r.calibration.estimate(last.estimatedInputTokens);
      assert.ok(Math.abs(predicted - last.inputTokens) / last.inputTokens < 0.05, `predicted ${predicted}, reported ${last.inputTokens}`);
      assert.ok(Math.abs(last.estimatedInputTokens - last.inputTokens) / last.inputTokens > 0.4, 'raw o200k is far off');
      assert.ok(r.agent.rawOverheadTokens() > 100, 'the system prompt and tool definitions are estimated');
    } finally {
      await r.close();
    }
  });
});

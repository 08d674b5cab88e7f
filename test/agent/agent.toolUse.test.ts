// The agent loop running tools end to end (see agentRig.ts): each request carries the right
// tool_result, the system prompt and tool definitions ride along, parallel calls are answered in one
// message, a hostile path is an error result, and the session stays a valid request throughout.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ValidRequest } from '../loopback/anthropic-server';
import { defaultSystemPrompt, type AgentRunResult } from '../../src/agent/loop/agent';
import { withoutCacheControl } from '../helpers/cacheControl';
import { assertValid, last, rig, toolResultsOf, type Rig } from './agentRig';

describe('a tool-use run: read_file, then search, then a final answer', () => {
  let r: Rig;
  let result: AgentRunResult;
  before(async () => {
    r = await rig();
    r.server.queue
      .toolUse([{ name: 'read_file', input: { path: 'src/math.ts' }, id: 'toolu_read' }], { text: 'Let me look at the code.' })
      .toolUse([{ name: 'search', input: { query: 'add(' }, id: 'toolu_search' }])
      .text('add() subtracts instead of adding; it is called from src/main.ts.');
    result = await r.agent.run('Why does add(2, 2) print 0?');
  });
  after(async () => {
    await r.close();
  });

  test('completes in three steps, every request accepted', () => {
    assert.equal(result.status, 'completed');
    assert.equal(result.steps, 3);
    assert.equal(result.stopReason, 'end_turn');
    assert.equal(r.server.messageRequests.length, 3);
    assert.ok(r.server.requests.every((q) => q.status === 200));
  });

  test('each request carries the right tool_result', () => {
    // Request 2 answers the read with the numbered file.
    const second = r.sent(1);
    assert.equal(second.length, 3);
    const readResult = toolResultsOf(last(second));
    assert.equal(readResult.length, 1);
    assert.equal(readResult[0].tool_use_id, 'toolu_read');
    assert.equal(readResult[0].content, '1\texport function add(a: number, b: number) {\n2\t  return a - b; // BUG\n3\t}');
    assert.equal(readResult[0].is_error, undefined);
    // Request 3 answers the search, after the first exchange unchanged.
    const third = r.sent(2);
    assert.equal(third.length, 5);
    assert.deepEqual(withoutCacheControl(third.slice(0, 3)), withoutCacheControl(second), 'the same blocks (the breakpoint moved on)');
    const searchResult = toolResultsOf(last(third));
    assert.equal(searchResult[0].tool_use_id, 'toolu_search');
    assert.match(String(searchResult[0].content), /^src\/main\.ts:2: console\.log\(add\(2, 2\)\);$/m);
  });

  test('the request carries the system prompt and the tool definitions, cache breakpoints on both', () => {
    const body = r.server.messageRequests[0].body;
    assert.deepEqual(body.system, [{ type: 'text', text: defaultSystemPrompt(), cache_control: { type: 'ephemeral' } }]);
    assert.deepEqual(body.tools?.at(-1)?.cache_control, { type: 'ephemeral' });
    assert.deepEqual(
      body.tools?.map((t) => t.name),
      ['read_file', 'list_files', 'search', 'edit_file', 'write_file', 'run_command', 'compact', 'todo'],
    );
    assert.equal(body.stream, true);
  });

  test('the session: prompt, call, results, call, results, answer — a valid request', () => {
    assert.deepEqual(
      r.session.messages.map((m) => m.role),
      ['user', 'assistant', 'user', 'assistant', 'user', 'assistant'],
    );
    assert.ok(r.session.messages.every((m) => m.id && typeof m.createdAt === 'number'));
    assertValid(r.session);
  });

  test('events: streamed text, tool calls with inputs, results, usage and a closing turn-ended', () => {
    assert.equal(
      r
        .of('text-delta')
        .map((e) => e.text)
        .join(''),
      'Let me look at the code.add() subtracts instead of adding; it is called from src/main.ts.',
    );
    assert.deepEqual(
      r.of('tool-call-started').map((e) => [e.toolUseId, e.name]),
      [
        ['toolu_read', 'read_file'],
        ['toolu_search', 'search'],
      ],
    );
    assert.deepEqual(r.of('tool-call-input')[0].input, { path: 'src/math.ts' });
    assert.deepEqual(
      r.of('tool-result').map((e) => [e.name, e.isError, e.cancelled]),
      [
        ['read_file', false, false],
        ['search', false, false],
      ],
    );
    const usage = r.of('usage');
    assert.equal(usage.length, 3);
    assert.equal(usage[0].inputTokens, (r.server.messageRequests[0] as ValidRequest).inputTokens);
    assert.equal(usage[0].contextWindow, 100_000);
    assert.equal(usage[0].contextTokens, usage[0].inputTokens + usage[0].outputTokens);
    assert.equal(r.calibration.observations, 3, 'every reply calibrated the counter');
    assert.equal(r.events[0].type, 'turn-started');
    const ended = last(r.events);
    assert.equal(ended.type, 'turn-ended');
    assert.deepEqual(ended.type === 'turn-ended' && ended.result, result);
  });
});

describe('tool calls', () => {
  test('parallel tool calls are executed in order and answered in ONE user message', async () => {
    const r = await rig();
    try {
      r.server.queue
        .toolUse([
          { name: 'read_file', input: { path: 'src/main.ts' }, id: 'toolu_1' },
          { name: 'read_file', input: { path: 'missing.ts' }, id: 'toolu_2' },
          { name: 'list_files', input: { path: 'src' }, id: 'toolu_3' },
        ])
        .text('Done.');
      const result = await r.agent.run('Look around.');
      assert.equal(result.status, 'completed');
      const results = toolResultsOf(last(r.sent(1)));
      assert.deepEqual(
        results.map((b) => b.tool_use_id),
        ['toolu_1', 'toolu_2', 'toolu_3'],
      );
      assert.equal(results[1].is_error, true);
      assert.match(String(results[1].content), /no such file: missing.ts/);
      assert.equal(results[2].content, 'src/main.ts\nsrc/math.ts');
      assert.deepEqual(
        r.of('tool-running').map((e) => e.toolUseId),
        ['toolu_1', 'toolu_2', 'toolu_3'],
      );
      assertValid(r.session);
    } finally {
      await r.close();
    }
  });

  test('a hostile path from the model comes back as an is_error tool_result, and the loop goes on', async () => {
    const r = await rig();
    try {
      r.server.queue.toolUse('read_file', { path: '../../../../etc/passwd' }).text('I cannot read that.');
      const result = await r.agent.run('Read /etc/passwd');
      assert.equal(result.status, 'completed');
      const [res] = toolResultsOf(last(r.sent(1)));
      assert.equal(res.is_error, true);
      assert.match(String(res.content), /^read_file: path escapes the workspace: \.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd/);
    } finally {
      await r.close();
    }
  });
});

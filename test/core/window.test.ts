// The window a recorded session ran with, from the evidence (importers/window.ts): Codex's recorded
// model_context_window, Claude's [1m] marker, a recorded request larger than the table's window (the 1M
// tier), else the table; --window wins, with a note when the recording contradicts it. Expectations
// come from the fixtures' raw lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Message, RecordedUsage } from '../../src/core/conversation/conversation';
import { contextWindowFor, largeWindowFor } from '../../src/core/cost/cost';
import { importSession } from '../../src/core/importers';
import { sessionWindow } from '../../src/core/importers/window';

const REAL = 'test/fixtures/real-sessions';
const ONE_M = 'test/fixtures/window-1m/claude-code-1m-window.jsonl';

/** The largest request of a Claude Code file's raw lines: input + cache read + cache creation of one usage. */
function largestClaudeRequest(file: string): number {
  let max = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.includes('"usage"')) continue;
    const u = JSON.parse(line).message?.usage;
    if (u) max = Math.max(max, u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0));
  }
  return max;
}

const load = (file: string) => importSession(readFileSync(file, 'utf8'), file);

test('Codex: the recorded model_context_window (source recorded)', () => {
  for (const name of ['codex-agentv-a', 'codex-agentv-b']) {
    const file = `${REAL}/${name}.jsonl`;
    const windows = new Set([...readFileSync(file, 'utf8').matchAll(/"model_context_window":(\d+)/g)].map((m) => Number(m[1])));
    assert.equal(windows.size, 1, `${name} records one window`);
    assert.deepEqual(sessionWindow(load(file)), { window: [...windows][0], source: 'recorded', model: 'gpt-5.5' });
  }
});

test('Claude Code: requests within the table window keep the table window (model-table); one over it proves the 1M tier', () => {
  for (const name of ['claude-code-cipher-box-a', 'claude-code-cipher-box-b', 'claude-code-cipher-box-c']) {
    const file = `${REAL}/${name}.jsonl`;
    const result = load(file);
    const w = sessionWindow(result);
    assert.ok(largestClaudeRequest(file) <= 200_000, `${name}'s requests fit 200K`);
    assert.equal(w.source, 'model-table', name);
    assert.equal(w.window, contextWindowFor(w.model), name);
    assert.equal(w.note, undefined);
  }
  const largest = largestClaudeRequest(ONE_M);
  assert.equal(largest, 303_594, 'the synthetic fixture reads 303,594 tokens in one call');
  const w = sessionWindow(load(ONE_M));
  assert.equal(w.source, 'inferred-from-usage');
  assert.equal(w.window, 1_000_000);
  assert.equal(w.window, largeWindowFor('claude-opus-4-6'));
  assert.match(w.note!, /a recorded call read 303,594 tokens, more than the 200,000 window the table gives claude-opus-4-6/);
  assert.ok(largest <= w.window, 'never over 100% of its window');
});

const call = (id: string, input: number, model: string, extra: Partial<RecordedUsage> = {}): Message[] => [
  { id: `u${id}`, role: 'user', content: 'go on' },
  {
    id: `a${id}`,
    role: 'assistant',
    content: 'ok',
    usage: { inputTokens: 1, cacheReadTokens: input - 1, cacheCreationTokens: 0, outputTokens: 1, model, ...extra },
  },
];
const session = (messages: Message[], model?: string) => ({ messages, compactions: [], warnings: [], ...(model ? { model } : {}) });

test('the [1m] marker in the model id is the recorded window; --window is the user’s, noted when the recording contradicts it', () => {
  assert.deepEqual(sessionWindow(session(call('1', 5000, 'claude-sonnet-4-6[1m]'))), {
    window: 1_000_000,
    source: 'recorded',
    model: 'claude-sonnet-4-6[1m]',
  });
  const big = session([...call('1', 5000, 'claude-sonnet-4-5'), ...call('2', 250_000, 'claude-sonnet-4-5')]);
  assert.equal(sessionWindow(big).source, 'inferred-from-usage');
  const given = sessionWindow(big, 200_000);
  assert.deepEqual([given.window, given.source], [200_000, 'user']);
  assert.match(given.note!, /read 250,000 tokens in one call, more than the 200,000 window given/);
  assert.equal(sessionWindow(big, 1_000_000).note, undefined, 'no contradiction: no note');
  const codex = session(call('1', 5000, 'gpt-5.5', { contextWindow: 258_400 }));
  assert.equal(sessionWindow(codex).source, 'recorded');
  assert.match(sessionWindow(codex, 100_000).note!, /the recording says its window was 258,400; 100,000 given/);
  // Haiku offers no 1M tier: a request over its window still proves a larger one (the recording is the evidence).
  const haiku = sessionWindow(session(call('1', 240_000, 'claude-haiku-4-5')));
  assert.deepEqual([haiku.window, haiku.source], [1_000_000, 'inferred-from-usage']);
  // No model, no calls: the default window from the table's fallback.
  assert.deepEqual(sessionWindow(session([{ id: 'u', role: 'user', content: 'hi' }])), { window: 200_000, source: 'model-table' });
});

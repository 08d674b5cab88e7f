// The replay of a cache-aware micro-compaction: after each replayed call the pipeline is told what that
// call left in the prompt cache, its cache read AND its cache write (the whole request, as the agent
// tells it). A batch of old results inside that prefix is then held when clearing it would not pay back
// the rewrite within the horizon; the same batch outside any cached prefix is cleared at once.
// Counts use the chars/4 tokenizer; recorded usage is 2,000 + the visible input (a 2,000-token prefix).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  budgetTrigger,
  CharEstimateTokenizer,
  MemoizedMessageCounter,
  replaySession,
  type ImportResult,
  type Message,
  type ReplayConfig,
} from '../../src/core/index';

const MODEL = 'claude-sonnet-4-5';
const PREFIX = 2_000;
const tokenizer = new CharEstimateTokenizer();

/**
 * A prompt and three Read calls: a small first result (400 characters, about 100 tokens) and two large
 * ones (8,000 characters), then the answer. Recorded usage: PREFIX + the visible input of each call.
 */
function recording(): ImportResult {
  const counter = new MemoizedMessageCounter(tokenizer);
  const messages: Message[] = [{ id: 'u1', role: 'user', content: 'Read the three modules and tell me what they export.' }];
  const call = (id: string, content: Message['content']): Message => ({
    id,
    role: 'assistant',
    content,
    usage: {
      inputTokens: PREFIX + counter.countMessages(messages),
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
      outputTokens: 5,
      model: MODEL,
    },
  });
  [400, 8_000, 8_000].forEach((chars, i) => {
    const k = i + 1;
    messages.push(call(`c${k}`, [{ type: 'tool_use', id: `t${k}`, name: 'Read', input: { path: `m${k}.ts` } }]));
    messages.push({
      id: `r${k}`,
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `t${k}`, content: `export const m${k} = 1;\n`.padEnd(chars, 'z') }],
    });
  });
  messages.push(call('a4', 'They each export one constant.'));
  return { format: 'anthropic-json', messages, compactions: [], warnings: [], model: MODEL };
}

function config(name: string, cacheAware: boolean, promptCaching: ReplayConfig['promptCaching'] = '5m'): ReplayConfig {
  return {
    name,
    maxOutputTokens: 1_000,
    ledger: true,
    promptCaching,
    pipeline: {
      microCompact: { enabled: true, keepRecent: 2, minChars: 100, cacheAware, horizonTurns: 10 },
      autoCompact: {
        enabled: false,
        strategy: 'recursive-summarization',
        params: { maxEventsToKeep: 2, overlapSize: 0 },
        trigger: budgetTrigger({ fraction: 0.9 }),
        review: 'never',
      },
    },
  };
}

test('cache-aware micro-compaction in a replay weighs all the previous call cached (read + write): a batch under a large cached result is held', async () => {
  const configs = [config('aware', true), config('plain', false), config('aware, caching off', true, 'off')];
  const [aware, plain, uncached] = (await replaySession(recording(), configs, { tokenizer })).configs;
  assert.equal(aware.calls, 4);
  // Call 4 is the first with an old result (r1, behind the two kept). Clearing it would re-write the large
  // r2 that call 3 wrote to the cache, to save about 100 tokens: held, and call 4 reads all of call 3.
  for (let k = 1; k < 4; k++) {
    assert.equal(
      aware.points[k].cacheReadTokens,
      aware.points[k - 1].contextTokens,
      `call ${k + 1} reads all of call ${k} (read ${aware.points[k].cacheReadTokens} of ${aware.points[k - 1].contextTokens})`,
    );
  }
  // Not weighing the cache, the same batch is cleared: call 4 re-writes from r1 on.
  assert.ok(plain.points[3].cacheReadTokens < plain.points[2].contextTokens, 'plain micro-compaction clears r1');
  assert.ok(plain.points[3].contextTokens < aware.points[3].contextTokens);
  // With caching off there is no cached prefix to protect: cache-aware clears as plain does.
  assert.deepEqual(
    uncached.points.map((p) => p.contextTokens),
    plain.points.map((p) => p.contextTokens),
  );
});

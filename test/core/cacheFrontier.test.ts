// The micro-compaction frontier (issue 25): the leading messages of the view no later batch can change. A
// cache breakpoint at its end lets a batch's request read the prefix up to it from the cache; the replay
// prices that, and a batch then re-writes only what follows the frontier, not the whole conversation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IncrementalMicroCompactor } from '../../src/core/pipeline/microCompactor';
import type { MicroCompactSettings } from '../../src/core/pipeline/microBatch';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import type { Message } from '../../src/core/conversation/conversation';
import { requestSegments } from '../../src/core/replay/requestCache';
import { PrefixCache } from '../../src/core/cost/cost';

/** A prompt, then `n` tool exchanges with results of 1,200 characters (about 300 tokens); exchange 1's result is short. */
function history(n: number): Message[] {
  const out: Message[] = [{ id: 'u0', role: 'user', content: 'Look at the project.' }];
  for (let k = 0; k < n; k++) {
    out.push({ id: `c${k}`, role: 'assistant', content: [{ type: 'tool_use', id: `t${k}`, name: 'read_file', input: { k } }] });
    const text = k === 1 ? 'ok' : `output ${k} `.repeat(120);
    out.push({ id: `r${k}`, role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${k}`, content: text }] });
  }
  return out;
}

const SETTINGS: MicroCompactSettings = { keepRecent: 2, minChars: 100, triggerTokens: 1_000, clearAtLeast: 0, horizonTurns: 10 };

test('the frontier is the first message holding a result a batch may still clear; it moves only when a batch clears', () => {
  const tokens = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const micro = new IncrementalMicroCompactor(SETTINGS, tokens);
  const all = history(12);
  // Three exchanges: nothing old enough yet; the first result (message 2) may be cleared later.
  micro.sync(all.slice(0, 7), 0);
  assert.equal(micro.truncatedResults, 0);
  assert.equal(micro.stableMessages, 2);
  // Five exchanges: three old results (one too short to clear) are under triggerTokens: held, frontier unchanged.
  micro.sync(all.slice(0, 11), 0);
  assert.equal(micro.truncatedResults, 0);
  assert.equal(micro.stableMessages, 2);
  // Seven exchanges: the old results clear in one batch; the frontier moves to the first result kept recent.
  micro.sync(all.slice(0, 15), 0);
  assert.ok(micro.truncatedResults > 0);
  assert.equal(micro.stableMessages, 12, 'results t0..t4 cleared (t1 never a candidate), t5 in message 12 is kept');
  const before = micro.messages.slice(0, 12);
  // Later batches never change the messages before the frontier.
  micro.sync(all, 0);
  assert.ok(micro.stableMessages > 12);
  before.forEach((m, i) => assert.equal(micro.messages[i], m, `message ${i} unchanged by the next batch`));
  // A rewrite starts over.
  micro.sync(all.slice(0, 3), 1);
  assert.equal(micro.stableMessages, 2);
});

test('the replay reads up to the frontier breakpoint when a batch rewrites the messages after it', () => {
  const tokens = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const micro = new IncrementalMicroCompactor(SETTINGS, tokens);
  const all = history(12);
  const prefix = { overheadTokens: 5_000, warmTokens: 0 };
  const price = (withFrontier: boolean) => {
    const cache = new PrefixCache(1_024);
    let sent = 0;
    let writes = 0;
    const frontier = { last: 0 };
    for (let n = 7; n <= all.length; n += 2) {
      micro.sync(all.slice(0, n), withFrontier ? 10 : 20);
      const stable = withFrontier ? [...new Set([frontier.last, micro.stableMessages])].filter((x) => x > 0) : [];
      frontier.last = micro.stableMessages;
      const r = requestSegments(prefix, micro.messages, tokens, stable);
      const out = cache.call(r.segments, r.breakpoints, sent++ * 1_000, '5m');
      writes += out.cacheWriteTokens;
    }
    return writes;
  };
  const plain = price(false);
  const marked = price(true);
  assert.ok(marked < plain, `cache writes with the frontier breakpoint ${marked} < without ${plain}`);
});

// The incremental micro-compactor's configure(): a change of any one setting, alone, rebuilds the view
// under the new settings on the next sync (it equals a fresh micro-compactor given them). Each pair of
// values below gives a different view, so a setting the change check ignores would show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IncrementalMicroCompactor, type MicroDecisionContext } from '../../src/core/pipeline/microCompactor';
import type { MicroCompactSettings } from '../../src/core/pipeline/microBatch';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import type { Message } from '../../src/core/conversation/conversation';

/** A prompt and six tool exchanges whose results are 1,200 characters each (about 300 tokens); read_file reads one file again and again. */
function history(): Message[] {
  const out: Message[] = [{ id: 'u0', role: 'user', content: 'Look at the project.' }];
  const tools = ['read_file', 'search', 'run_command', 'read_file', 'list_files', 'read_file'];
  tools.forEach((name, k) => {
    const input = name === 'read_file' ? { path: 'a.ts' } : { k };
    out.push({ id: `c${k}`, role: 'assistant', content: [{ type: 'tool_use', id: `t${k}`, name, input }] });
    out.push({ id: `r${k}`, role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${k}`, content: `output ${k} `.repeat(120) }] });
  });
  return out;
}

const BASE: MicroCompactSettings = { keepRecent: 2, minChars: 100, triggerTokens: 0, clearAtLeast: 0, horizonTurns: 10 };
/** The whole view is cached (a cache-aware batch weighs rewriting it). */
const CACHED: MicroDecisionContext = { cache: { cachedPrefixTokens: 1_000_000, model: 'claude-sonnet-4-5' } };

const CHANGES: Array<[string, Partial<MicroCompactSettings>, Partial<MicroCompactSettings>]> = [
  ['keepRecent', { keepRecent: 2 }, { keepRecent: 4 }],
  ['minChars', { minChars: 100 }, { minChars: 100_000 }],
  ['triggerTokens', { triggerTokens: 0 }, { triggerTokens: 1_000_000 }],
  ['clearAtLeast', { clearAtLeast: 1_000_000 }, { clearAtLeast: 0 }],
  ['clearAtLeast (back up)', { clearAtLeast: 0 }, { clearAtLeast: 1_000_000 }],
  ['tools', { tools: ['read_file'] }, { tools: ['search'] }],
  ['cacheAware', { cacheAware: false, horizonTurns: 1 }, { cacheAware: true }],
  ['horizonTurns', { cacheAware: true, horizonTurns: 1 }, { cacheAware: true, horizonTurns: 1_000_000 }],
  ['supersede', { supersede: false }, { supersede: true }],
];

function synced(settings: MicroCompactSettings, messages: Message[], tokens: MemoizedMessageCounter): IncrementalMicroCompactor {
  const fresh = new IncrementalMicroCompactor(settings, tokens);
  fresh.sync(messages, 0, CACHED);
  return fresh;
}

for (const [name, from, to] of CHANGES) {
  test(`a change of ${name} alone is applied on the next sync`, () => {
    const tokens = new MemoizedMessageCounter(new CharEstimateTokenizer());
    const messages = history();
    const before: MicroCompactSettings = { ...BASE, ...from };
    const after: MicroCompactSettings = { ...before, ...to };
    const expected = synced(after, messages, tokens);
    assert.notDeepEqual(
      synced(before, messages, tokens).messages,
      expected.messages,
      'the two values give different views (else the test shows nothing)',
    );
    const micro = new IncrementalMicroCompactor(before, tokens);
    micro.sync(messages, 0, CACHED);
    micro.configure(after);
    micro.sync(messages, 0, CACHED);
    assert.deepEqual([...micro.cleared].sort(), [...expected.cleared].sort(), 'the tool results cleared');
    assert.deepEqual(micro.messages, expected.messages);
    assert.equal(micro.tokenTotal, expected.tokenTotal);
  });
}

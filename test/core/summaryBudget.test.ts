// The summary's bound (issue 25): splitpoint.summaryMaxTokens when positive; at 0, a base plus an
// allowance per probe the archived messages yield, plus the earlier summary being re-summarized,
// clamped to [1,024, 8,192] and to the call's max output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message } from '../../src/core/conversation/conversation';
import { CharEstimateTokenizer } from '../../src/core/counting/tokens';
import { generateProbes } from '../../src/core/probes/generate';
import { LEDGER_HEADING } from '../../src/core/ledger/ledgerMerge';
import {
  SUMMARY_BASE_TOKENS,
  SUMMARY_MAX_TOKENS,
  SUMMARY_MIN_TOKENS,
  SUMMARY_TOKENS_PER_PROBE,
  summaryTokenBound,
} from '../../src/core/pipeline/summaryBudget';
import { summary, user } from '../helpers/build';

const tokenizer = new CharEstimateTokenizer();

/** `n` successful edits of distinct files (each one an artifact probe), after a prompt. */
function edits(n: number): Message[] {
  const out: Message[] = [user('u0', 'Add the constants.')];
  for (let i = 0; i < n; i++) {
    out.push({
      id: `a${i}`,
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id: `t${i}`,
          name: 'Write',
          input: { file_path: `/repo/src/const${i}.ts`, content: `export const VALUE_${i} = ${i};\n` },
        },
      ],
    });
    out.push({ id: `r${i}`, role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'File written.' }] });
  }
  return out;
}

const bound = (toSummarize: Message[], setting = 0, maxOutputTokens = 32_000, priorSummaries: Message[] = []) =>
  summaryTokenBound({ toSummarize, priorSummaries }, { setting, maxOutputTokens, tokenizer });

test('sized by the probes: base + allowance per probe, growing with what the summary archives', () => {
  const small = bound(edits(3));
  assert.equal(small.source, 'probes');
  assert.equal(small.tokens, SUMMARY_MIN_TOKENS, 'a small archive gets the floor');
  const archive = edits(40);
  const probes = generateProbes({ archived: archive }, { max: 1_000 }).length;
  assert.ok(probes >= 40, `every written file is a probe: ${probes}`);
  const b = bound(archive);
  assert.equal(b.probes, probes);
  assert.equal(b.tokens, SUMMARY_BASE_TOKENS + probes * SUMMARY_TOKENS_PER_PROBE);
  assert.ok(bound(edits(60)).tokens > b.tokens, 'more facts archived, a larger bound');
  assert.equal(bound(edits(400)).tokens, SUMMARY_MAX_TOKENS, 'clamped at the ceiling');
});

test('an earlier summary being re-summarized is carried: its tokens are added', () => {
  const archive = edits(40);
  const prior = summary('s0', 'Earlier work: '.padEnd(2_000, 'x'));
  assert.equal(bound(archive, 0, 32_000, [prior]).tokens - bound(archive).tokens, tokenizer.countText(prior.content as string));
});

test("the artifact ledger after an earlier summary is the engine's: it does not enlarge the bound", () => {
  const archive = edits(40);
  const own = 'Earlier work: '.padEnd(2_000, 'x');
  const withLedger = summary('s0', `${own}\n\n${LEDGER_HEADING}\n${'- /repo/src/file.ts: edited\n'.repeat(100)}`);
  assert.equal(bound(archive, 0, 32_000, [withLedger]).tokens - bound(archive).tokens, tokenizer.countText(`${own}\n\n`));
});

test('a positive setting is the bound, whatever is archived; the session max output caps the probe-sized one', () => {
  assert.deepEqual(bound(edits(40), 777), { tokens: 777, source: 'setting', probes: null });
  assert.deepEqual(bound(edits(3), 9_000).tokens, 9_000);
  assert.equal(bound(edits(400), 0, 2_000).tokens, 2_000);
});

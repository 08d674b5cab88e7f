// The replay's summary calls (issue 25): a summary model other than the session's cannot read the
// conversation's cache, so its call is the standalone prompt, uncached, at its own price; the session's
// model reads the cached prefix. summaryMaxTokens bounds every summary's output. Counts use the
// chars/4 tokenizer and a recording whose usage is 2,000 + the visible input (factor 1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  budgetTrigger,
  CharEstimateTokenizer,
  replaySession,
  type ImportResult,
  type Message,
  type ReplayConfig,
} from '../../src/core/index';
import type { ReplayConfigResult } from '../../src/core/replay';

const MODEL = 'claude-sonnet-4-5';
const tokenizer = new CharEstimateTokenizer();
const tokensOf = (m: Message) => 4 + Math.ceil((m.content as string).length / 4);

/** Eight prompts of 4,000 characters and short answers; recorded usage = 2,000 + the visible input. */
function recording(): ImportResult {
  const messages: Message[] = [];
  for (let k = 1; k <= 8; k++) {
    messages.push({ id: `u${k}`, role: 'user', content: `u${k} `.padEnd(4_000, 'x') });
    const input = messages.reduce((n, m) => n + tokensOf(m), 0);
    messages.push({
      id: `a${k}`,
      role: 'assistant',
      content: `answer ${k} `.padEnd(40, 'y'),
      usage: { inputTokens: 2_000 + input, cacheReadTokens: 0, cacheCreationTokens: 0, outputTokens: 10, model: MODEL },
    });
  }
  return { format: 'anthropic-json', messages, compactions: [], warnings: [], model: MODEL };
}

function config(name: string, over: Partial<ReplayConfig> = {}): ReplayConfig {
  return {
    name,
    maxOutputTokens: 1_000,
    ledger: true,
    promptCaching: '5m',
    pipeline: {
      microCompact: { enabled: false, keepRecent: 3, minChars: 100 },
      autoCompact: {
        enabled: true,
        strategy: 'recursive-summarization',
        params: { maxEventsToKeep: 2, overlapSize: 0 },
        trigger: budgetTrigger({ headroomTokens: 4_000 }),
        review: 'never',
      },
    },
    ...over,
  };
}

/** The summary calls' own tokens: the totals minus the replayed calls'. */
function summaryTokens(r: ReplayConfigResult) {
  const sum = (f: (p: ReplayConfigResult['points'][number]) => number) => r.points.reduce((n, p) => n + f(p), 0);
  return {
    input: r.inputTokens - sum((p) => p.inputTokens),
    read: r.cacheReadTokens - sum((p) => p.cacheReadTokens),
    write: r.cacheWriteTokens - sum((p) => p.cacheWriteTokens),
    output: r.outputTokens - sum((p) => p.outputTokens),
  };
}

test('another summary model: the standalone prompt, uncached, at its price; the session model reads the cached conversation', async () => {
  const report = await replaySession(
    recording(),
    [config('own'), config('own-named', { summaryModel: MODEL }), config('haiku', { summaryModel: 'claude-haiku-4-5' })],
    { tokenizer, contextWindow: 12_000 },
  );
  const [own, named, haiku] = report.configs;
  assert.ok(own.summaryCalls >= 1 && haiku.summaryCalls === own.summaryCalls, `${own.summaryCalls} / ${haiku.summaryCalls}`);
  assert.equal(own.summaryModel, MODEL);
  assert.equal(haiku.summaryModel, 'claude-haiku-4-5');
  assert.equal(named.costUSD, own.costUSD, 'naming the session model is the default');
  const o = summaryTokens(own);
  assert.ok(o.read > 0, 'the session model reads the cached conversation');
  const h = summaryTokens(haiku);
  assert.equal(h.read, 0, 'another model reads nothing of the cache');
  assert.equal(h.write, 0, 'and writes nothing to it');
  assert.ok(h.input > o.input, `the whole standalone prompt is uncached input: ${h.input} > ${o.input}`);
  // Haiku 4.5: $1 input, $5 output per million tokens.
  assert.ok(Math.abs(haiku.summaryCostUSD - (h.input * 1 + h.output * 5) / 1e6) < 1e-12, `${haiku.summaryCostUSD}`);
  assert.ok(haiku.summaryCostUSD < own.summaryCostUSD, `haiku $${haiku.summaryCostUSD} < sonnet $${own.summaryCostUSD}`);
  assert.match(haiku.notes.join('\n'), /summaries by claude-haiku-4-5: the standalone prompt, uncached/);
  assert.deepEqual(report.warnings, []);
});

test('summaryMaxTokens bounds every summary; an unknown summary model is priced by its family, with a warning naming the key', async () => {
  const report = await replaySession(
    recording(),
    [config('probes'), config('fixed', { summaryMaxTokens: 300 }), config('odd', { summaryModel: 'claude-fable-9' })],
    { tokenizer, contextWindow: 12_000 },
  );
  const [probes, fixed, odd] = report.configs;
  assert.deepEqual(fixed.summaryBound, { min: 300, max: 300, source: 'setting' });
  assert.ok(summaryTokens(fixed).output <= 300 * fixed.summaryCalls, `${summaryTokens(fixed).output}`);
  assert.ok(summaryTokens(fixed).output < summaryTokens(probes).output);
  assert.equal(probes.summaryBound?.source, 'probes');
  assert.match(fixed.notes.join('\n'), /max_tokens of 300 \(summaryMaxTokens\)/);
  assert.ok(odd.summaryCalls > 0);
  assert.equal(report.warnings.length, 1);
  assert.match(report.warnings[0], /^summaryModel: claude-fable-9: no price in the table/);
});

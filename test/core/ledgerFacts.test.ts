// Facts added to the ledger of the current compaction after it ran (issue 22, "act on what was lost"):
// the history is saved as a transcript before the compaction's opener or summary is rewritten, the fact
// is in the next request and in the session read back from disk, the next compaction carries it, an undo
// still reverts the compaction, and every refusal leaves the history and the record as they were.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicLlmClient } from '../../src/agent/loop/anthropicClient';
import { summarize, textOf, type Message } from '../../src/core/index';
import { createTokenizer } from '../../src/core/counting/tokenizers';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import {
  FACTS_TITLE,
  fitLedger,
  isEmptyLedger,
  LEDGER_HEADING,
  mergeLedgers,
  parseLedger,
  renderLedger,
} from '../../src/core/ledger/ledgerMerge';
import { factText, MAX_FACT_CHARS } from '../../src/core/pipeline/ledgerFacts';
import { CompactionPipeline, type PipelineDeps } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { budgetTrigger } from '../../src/core/pipeline/triggers';
import { SessionFileStore } from '../../src/core/session/session';
import { restoreTranscript, TranscriptStore } from '../../src/core/transcripts/transcripts';
import { LoopbackAnthropic } from '../loopback/anthropic-server';

function turn(i: number): Message[] {
  return [
    { id: `u${i}`, role: 'user', content: `instruction ${i}` },
    { id: `a${i}`, role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'read_file', input: { path: `src/f${i}.ts` } }] },
    { id: `r${i}`, role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'w'.repeat(400) }] },
    { id: `d${i}`, role: 'assistant', content: [{ type: 'text', text: `done ${i}` }] },
  ];
}

interface Rig {
  p: CompactionPipeline;
  store: SessionFileStore;
  transcripts: TranscriptStore;
  transcriptDir: string;
}

function rig(extra: Partial<PipelineDeps> = {}, turns = 6): Rig {
  const dir = mkdtempSync(join(tmpdir(), 'sp-facts-'));
  const store = new SessionFileStore(join(dir, 'sessions'));
  const session = store.create('s1', 'facts');
  for (let i = 0; i < turns; i++) session.append(...turn(i));
  const transcriptDir = join(dir, '.transcripts');
  const transcripts = new TranscriptStore({ dir: transcriptDir });
  const p = new CompactionPipeline(
    {
      session,
      transcripts,
      ctx: {
        ...DEFAULT_PLAN_CONTEXT,
        tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
        ledger: true,
        summaryMaxTokens: 200,
      },
      ...extra,
    },
    {
      microCompact: { enabled: false, keepRecent: 3, minChars: 100 },
      autoCompact: { enabled: false, strategy: 'sliding-window', params: {}, trigger: budgetTrigger({ fraction: 0.8 }) },
    },
  );
  return { p, store, transcripts, transcriptDir };
}

const requestText = (p: CompactionPipeline): string => JSON.stringify(p.prepareRequest().messages);
const probe = { question: 'Which command printed the failing test?', expected: ['npm test -- --grep parser', 'npm test'] };
const FACT = 'Which command printed the failing test? → npm test -- --grep parser';

test('ledger facts: the transcript is written first, the opener carries the fact, the next request and the saved session have it', async () => {
  const r = rig();
  const first = await r.p.compact({ strategy: 'turn-window', params: { maxTurns: 4 }, trigger: 'manual' });
  assert.ok(first.ok, first.ok ? '' : first.message);
  const before = [...r.p.session.messages];
  const openerBefore = before.find((m) => m.id === first.record.syntheticId)!;
  assert.ok(!requestText(r.p).includes('npm test -- --grep parser'), 'the fact is not in the request before');
  // What the history was when the transcript was saved: the opener not yet rewritten.
  let seen: readonly Message[] | null = null;
  const save = r.transcripts.saveTranscript.bind(r.transcripts);
  r.transcripts.saveTranscript = (id, messages, reason) => {
    seen = [...r.p.session.messages];
    return save(id, messages, reason);
  };
  const out = r.p.addLedgerFacts([probe, 'The user ruled out changing the lexer.']);
  assert.ok(out.ok, out.ok ? '' : out.message);
  assert.deepEqual(out.added, [FACT, 'The user ruled out changing the lexer.']);
  assert.deepEqual(seen, before, 'the transcript was saved before the history changed');
  assert.deepEqual(restoreTranscript(out.transcriptPath!), before, 'the transcript holds the history as it stood');
  const after = r.p.session.messages;
  assert.equal(after.length, before.length);
  const i = before.indexOf(openerBefore);
  assert.equal(after[i].id, openerBefore.id, 'the opener keeps its id and place');
  after.forEach((m, k) => k !== i && assert.equal(m, before[k], `message ${k} unchanged`));
  const text = textOf(after[i]);
  const section = text.indexOf(LEDGER_HEADING);
  assert.ok(section > 0 && text.indexOf(`${FACTS_TITLE}\n- ${FACT}`) > section, 'the fact is in the ledger section');
  assert.equal(text.split(LEDGER_HEADING).length, 2, 'one ledger section');
  assert.ok(text.includes('src/f1.ts') && text.includes(first.record.transcriptPath), 'the rest of the opener is kept');
  assert.ok(requestText(r.p).includes('npm test -- --grep parser'), 'the next request carries the fact');
  assert.deepEqual(first.record.ledger?.facts, [FACT, 'The user ruled out changing the lexer.']);
  const loaded = r.store.load('s1').log;
  assert.ok(textOf(loaded.messages[i]).includes(FACT), 'the rewritten history is on disk');
  assert.deepEqual(loaded.meta.compactions.at(-1)?.ledger?.facts, first.record.ledger?.facts, 'the record is on disk');
});

test('ledger facts: a fact already kept adds nothing and writes nothing', async () => {
  const r = rig();
  assert.ok((await r.p.compact({ strategy: 'turn-window', params: { maxTurns: 4 }, trigger: 'manual' })).ok);
  assert.ok(r.p.addLedgerFacts([probe]).ok);
  const files = readdirSync(r.transcriptDir).length;
  const messages = r.p.session.messages;
  const again = r.p.addLedgerFacts([probe]);
  assert.ok(again.ok);
  assert.deepEqual(again.added, []);
  assert.equal(again.transcriptPath, null);
  assert.equal(readdirSync(r.transcriptDir).length, files);
  assert.equal(r.p.session.messages, messages);
});

test('ledger facts: undo still reverts the compaction, and the next compaction carries the facts', async () => {
  const r = rig();
  const original = [...r.p.session.messages];
  assert.ok((await r.p.compact({ strategy: 'turn-window', params: { maxTurns: 4 }, trigger: 'manual' })).ok);
  assert.ok(r.p.addLedgerFacts([probe]).ok);
  r.p.session.append(...turn(6));
  const undone = r.p.undo();
  assert.ok(undone.ok, undone.ok ? '' : undone.message);
  assert.deepEqual(r.p.session.messages, [...original, ...turn(6)], 'the history before the compaction, and what followed');
  const late = r.p.addLedgerFacts(['x']);
  assert.ok(!late.ok && late.reason === 'no-compaction', 'an undone compaction takes no fact');
  assert.equal(late.message, 'No compaction to add a fact to: the last compaction was already undone.');

  const s = rig();
  assert.ok((await s.p.compact({ strategy: 'turn-window', params: { maxTurns: 4 }, trigger: 'manual' })).ok);
  assert.ok(s.p.addLedgerFacts([probe]).ok);
  for (let i = 6; i < 9; i++) s.p.session.append(...turn(i));
  const second = await s.p.compact({ strategy: 'turn-window', params: { maxTurns: 2 }, trigger: 'manual' });
  assert.ok(second.ok, second.ok ? '' : second.message);
  assert.deepEqual(second.record.ledger?.facts, [FACT]);
  assert.ok(textOf(s.p.session.messages.find((m) => m.id === second.record.syntheticId)!).includes(FACT));
  assert.ok(requestText(s.p).includes(FACT));
});

test('ledger facts: a summary keeps its text, the fact joins its ledger section', async () => {
  const server = new LoopbackAnthropic({ apiKey: 'sk-test' });
  const { baseURL } = await server.start();
  try {
    const client = new AnthropicLlmClient({ apiKey: 'sk-test', baseURL, model: 'claude-summarizer' });
    const r = rig(
      {
        summarizer: (input, focus, signal) =>
          summarize(input, {
            client,
            tokenizer: createTokenizer('gpt-tokenizer'),
            contextWindow: server.contextWindowFor('claude-summarizer'),
            maxSummaryTokens: 200,
            focus,
            signal,
          }),
      },
      10,
    );
    server.queue.text('The parser work is half done.');
    const c = await r.p.compact({ strategy: 'recursive-summarization', params: { maxEventsToKeep: 8, overlapSize: 1 }, trigger: 'manual' });
    assert.ok(c.ok, c.ok ? '' : c.message);
    const out = r.p.addLedgerFacts([probe]);
    assert.ok(out.ok, out.ok ? '' : out.message);
    const text = textOf(r.p.session.messages.find((m) => m.id === c.record.syntheticId)!);
    const summaryAt = text.indexOf('The parser work is half done.');
    assert.ok(summaryAt >= 0 && summaryAt < text.indexOf(LEDGER_HEADING), 'the summary comes first');
    assert.ok(text.slice(text.indexOf(LEDGER_HEADING)).includes(`- ${FACT}`));
    assert.ok(text.includes('instruction 0'), 'the ledger keeps its other entries');
  } finally {
    await server.close();
  }
});

test('ledger facts: refusals change nothing (no compaction, bad facts, a failed transcript, a running compaction)', async () => {
  const r = rig();
  const none = r.p.addLedgerFacts([probe]);
  assert.ok(!none.ok && none.reason === 'no-compaction', JSON.stringify(none));
  const c = await r.p.compact({ strategy: 'turn-window', params: { maxTurns: 4 }, trigger: 'manual' });
  assert.ok(c.ok);
  const messages = r.p.session.messages;
  for (const bad of [[], ['  '], [{ question: 'Q?', expected: [] }], ['x'.repeat(MAX_FACT_CHARS + 1)]]) {
    const out = r.p.addLedgerFacts(bad);
    assert.ok(!out.ok && out.reason === 'invalid', JSON.stringify(bad).slice(0, 60));
  }
  r.transcripts.saveTranscript = () => {
    throw new Error('disk full');
  };
  const failed = r.p.addLedgerFacts([probe]);
  assert.ok(!failed.ok && failed.reason === 'transcript-failed' && failed.message.includes('disk full'));
  assert.equal(r.p.session.messages, messages, 'the history is unchanged');
  assert.equal(c.record.ledger?.facts, undefined, 'the record is unchanged');

  let release!: () => void;
  const slow = rig({
    summarizer: () =>
      new Promise((resolve) => {
        release = () => resolve({ ok: true, summary: 'later', attempts: 1, promptTokens: 0, droppedMessages: 0, truncatedResults: 0 });
      }),
  });
  const running = slow.p.compact({
    strategy: 'recursive-summarization',
    params: { maxEventsToKeep: 4, overlapSize: 1 },
    trigger: 'manual',
  });
  await new Promise((resolve) => setImmediate(resolve));
  const busy = slow.p.addLedgerFacts([probe]);
  assert.ok(!busy.ok && busy.reason === 'busy');
  release();
  await running;
});

test('ledger facts: a probe is written as its question and first expected answer, on one line', () => {
  assert.deepEqual(factText(probe), { ok: true, text: FACT });
  assert.deepEqual(factText({ question: 'Where?', expected: 'src/a.ts' }), { ok: true, text: 'Where? → src/a.ts' });
  assert.deepEqual(factText('two\n  lines'), { ok: true, text: 'two lines' });
});

test('ledger facts: merged without repeats, never folded by the budget, read back only as strings', () => {
  const counter = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const base = { files: [], commands: [], errors: [], instructions: ['a long instruction '.repeat(20)] };
  const merged = mergeLedgers({ ...base, facts: ['f1', 'f2'] }, { ...base, instructions: ['next'], facts: ['f2', 'f3'] });
  assert.deepEqual(merged.facts, ['f1', 'f2', 'f3']);
  const fitted = fitLedger(merged, 5, counter);
  assert.deepEqual(fitted.facts, ['f1', 'f2', 'f3'], 'the facts stay');
  assert.equal(fitted.instructions.length, 0, 'the rest folds');
  assert.ok(renderLedger(fitted).includes(`${FACTS_TITLE}\n- f1\n- f2\n- f3`));
  assert.deepEqual(parseLedger({ ...base, facts: ['f'] })?.facts, ['f']);
  assert.equal(parseLedger({ ...base, facts: [1] }), null);
  assert.equal(isEmptyLedger({ files: [], commands: [], errors: [], instructions: [], facts: ['f'] }), false);
});

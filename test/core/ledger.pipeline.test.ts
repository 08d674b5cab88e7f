// The ledger through the pipeline: a compaction stores the ledger it carried in its record, the next
// compaction merges with it (the ledger accumulates), and a wrong-shaped stored ledger is ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { textOf, type Message } from '../../src/core/index';
import { parseLedger } from '../../src/core/ledger/ledgerMerge';
import { CompactionPipeline } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { SessionFileStore } from '../../src/core/session/session';
import { TranscriptStore } from '../../src/core/transcripts/transcripts';
import { budgetTrigger } from '../../src/core/pipeline/triggers';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';

function turn(i: number): Message[] {
  return [
    { id: `u${i}`, role: 'user', content: `instruction ${i}` },
    { id: `a${i}`, role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'read_file', input: { path: `src/f${i}.ts` } }] },
    { id: `r${i}`, role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'w'.repeat(400) }] },
    { id: `d${i}`, role: 'assistant', content: [{ type: 'text', text: `done ${i}` }] },
  ];
}

function pipeline(ledger: boolean): CompactionPipeline {
  const dir = mkdtempSync(join(tmpdir(), 'sp-ledger-'));
  const session = new SessionFileStore(join(dir, 'sessions')).create('s1', 'ledger');
  for (let i = 0; i < 6; i++) session.append(...turn(i));
  return new CompactionPipeline(
    {
      session,
      transcripts: new TranscriptStore({ dir: join(dir, '.transcripts') }),
      ctx: { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()), ledger },
    },
    {
      microCompact: { enabled: false, keepRecent: 3, minChars: 100 },
      autoCompact: { enabled: false, strategy: 'sliding-window', params: {}, trigger: budgetTrigger({ fraction: 0.8 }) },
    },
  );
}

test('pipeline: a compaction records its ledger and the next one accumulates it', async () => {
  const p = pipeline(true);
  const first = await p.compact({ strategy: 'turn-window', params: { maxTurns: 4 }, trigger: 'manual' });
  assert.ok(first.ok, first.ok ? '' : first.message);
  assert.deepEqual(first.record.ledger?.instructions, ['instruction 0', 'instruction 1']);
  const opener = p.session.messages.find((m) => m.synthetic === 'placeholder');
  assert.ok(
    opener && textOf(opener).includes('src/f1.ts') && textOf(opener).includes(first.record.transcriptPath),
    'the applied opener has the ledger and the transcript',
  );
  for (let i = 6; i < 8; i++) p.session.append(...turn(i));
  const second = await p.compact({ strategy: 'turn-window', params: { maxTurns: 2 }, trigger: 'manual' });
  assert.ok(second.ok, second.ok ? '' : second.message);
  assert.deepEqual(
    second.record.ledger?.instructions,
    [0, 1, 2, 3, 4, 5].map((i) => `instruction ${i}`),
  );
  assert.deepEqual(
    second.record.ledger?.files.map((f) => f.path),
    [0, 1, 2, 3, 4, 5].map((i) => `src/f${i}.ts`),
  );
});

test('pipeline: without the ledger in its context a compaction records none', async () => {
  const p = pipeline(false);
  const outcome = await p.compact({ strategy: 'turn-window', params: { maxTurns: 4 }, trigger: 'manual' });
  assert.ok(outcome.ok);
  assert.equal(outcome.record.ledger, undefined);
});

test('ledger: a stored ledger is read back only with the right shape', () => {
  const good = {
    files: [{ path: 'a', read: 1, edited: 0, created: 0, lastAction: 'read' }],
    commands: [{ command: 'ls', exitCode: null }],
    errors: [],
    instructions: ['x'],
  };
  assert.deepEqual(parseLedger(good), good);
  assert.deepEqual(parseLedger({ ...good, folded: { files: 1, commands: 0, errors: 0, instructions: 0 } })?.folded, {
    files: 1,
    commands: 0,
    errors: 0,
    instructions: 0,
  });
  for (const bad of [
    null,
    'x',
    [],
    { ...good, files: 'a' },
    { ...good, files: [{ path: 'a', read: -1, edited: 0, created: 0, lastAction: 'read' }] },
    { ...good, commands: [{ command: 'ls', exitCode: 1.5 }] },
    { ...good, instructions: [1] },
    { ...good, folded: { files: 1 } },
    { ...good, errors: [{ text: 'e' }] },
  ])
    assert.equal(parseLedger(bad), null, JSON.stringify(bad));
});

// The plan's ledger step and the probes in slices (planSteps, scorePlanSteps, ledgerTokensSteps): the
// same results as the synchronous calls (which run the same steps straight through), yielding many times
// over a large history; a long ledger rendering counted in pieces (o200k) equals its count as a whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  CharEstimateTokenizer,
  createTokenizer,
  DEFAULT_PLAN_CONTEXT,
  MemoizedMessageCounter,
  resolveStrategy,
  scorePlan,
  scorePlanSteps,
  type ArtifactLedger,
  type Steps,
} from '../../src/core/index';
import { copyLedger, fitLedger, ledgerTokens, ledgerTokensSteps, renderLedger } from '../../src/core/ledger/ledgerMerge';
import { syntheticSession } from '../helpers/synthetic';

/** The result of `steps` run straight through, and how many times they yielded. */
function drive<T>(steps: Steps<T>): { value: T; yields: number } {
  let yields = 0;
  for (;;) {
    const r = steps.next();
    if (r.done) return { value: r.value, yields };
    yields++;
  }
}

/** A plan without what a plan makes afresh (its synthetic messages' ids and times). */
const comparable = (v: unknown): unknown =>
  JSON.parse(
    JSON.stringify(v)
      .replace(/"(sum|ph)_[0-9a-z]+"/g, '"fresh"')
      .replace(/"createdAt":\d+/g, '"createdAt":0'),
  );

test('planSteps yields over a large history and plans what plan plans (ledger and loss report included)', () => {
  const messages = syntheticSession({ messages: 6_000, seed: 5 });
  const counter = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const ctx = { ...DEFAULT_PLAN_CONTEXT, tokens: counter, ledger: true };
  for (const name of ['recursive-summarization', 'sliding-window']) {
    const strategy = resolveStrategy(name, name === 'sliding-window' ? { maxEvents: 50 } : {});
    const plain = strategy.plan(messages, ctx);
    const { value, yields } = drive(strategy.planSteps(messages, ctx));
    assert.ok(plain.archived.length > 1_000 && plain.ledger, `${name} archives most of the history with a ledger`);
    assert.ok(yields > 20, `${name}: ${yields} yields`);
    assert.deepStrictEqual(comparable(value), comparable(plain), name);
  }
});

test('scorePlanSteps yields over a large history and scores what scorePlan scores', () => {
  const messages = syntheticSession({ messages: 6_000, seed: 9 });
  const ctx = { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()), ledger: true };
  const plan = resolveStrategy('recursive-summarization').plan(messages, ctx);
  const plain = scorePlan(messages, plan);
  const { value, yields } = drive(scorePlanSteps(messages, plan));
  assert.ok(plain.probes.length > 0);
  assert.ok(yields > 20, `${yields} yields`);
  assert.deepStrictEqual(value, plain);
});

/** A ledger whose rendering is long and varied: indents, blank lines, lines starting with "/", non-ASCII. */
function longLedger(n: number): ArtifactLedger {
  const files = Array.from({ length: n }, (_, i) => ({
    path: `/work/src/module${i % 97}/file_${i}.ts`,
    read: i % 3,
    edited: i % 2,
    created: i % 5 === 0 ? 1 : 0,
    lastAction: (i % 2 ? 'edited' : 'read') as 'edited' | 'read',
  }));
  const commands = Array.from({ length: n }, (_, i) => ({
    command: `npm test -- --grep "case ${i}" && echo ✓ ${i}`,
    exitCode: i % 7 === 0 ? 1 : 0,
  }));
  const errors = Array.from({ length: n / 4 }, (_, i) => ({
    text: `run_command npm test: Error: expected ${i} to equal ${i + 1}`,
    resolved: i % 2 === 0,
  }));
  const instructions = Array.from(
    { length: n / 10 },
    (_, i) => `Fix case ${i}:\n\n  keep the indent\n/usr/bin/env node run.js ${i}\n\t- a tab\n\r\nend «${i}» 日本語`,
  );
  return { files, commands, errors, instructions, names: Array.from({ length: 40 }, (_, i) => `name${i}`) };
}

test('a long ledger rendering counted in pieces (o200k) equals its count as a whole; fitLedger fits it', () => {
  const counter = new MemoizedMessageCounter(createTokenizer('gpt-tokenizer'));
  for (const n of [400, 2_000]) {
    const ledger = longLedger(n);
    assert.ok(renderLedger(ledger).length > 50_000);
    const { value, yields } = drive(ledgerTokensSteps(ledger, counter));
    assert.ok(yields > 2, `${n}: ${yields} yields`);
    assert.equal(value, ledgerTokens(ledger, counter), `${n} entries`);
    const fitted = fitLedger(ledger, 4_000, counter);
    assert.ok(ledgerTokens(fitted, counter) <= 4_000);
    assert.ok(fitted.folded && fitted.folded.commands > 0);
  }
  // A counter whose counts do not add up over pieces (chars/4) counts the whole rendering at once.
  const estimate = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const { value, yields } = drive(ledgerTokensSteps(longLedger(400), estimate));
  assert.equal(yields, 0);
  assert.equal(value, ledgerTokens(longLedger(400), estimate));
});

// fitLedger folds the entries its estimate says in one pass per category; the reference below folds them
// one at a time, each from the first category with one (the rule, as it was written before): the same
// ledger for any ledger and budget.
function referenceFit(ledger: ArtifactLedger, budgetTokens: number, counter: MemoizedMessageCounter): ArtifactLedger {
  const l = copyLedger(ledger);
  const foldOne = (): boolean => {
    const folded = (l.folded ??= { files: 0, commands: 0, errors: 0, instructions: 0 });
    if (l.names && l.names.length > 0) {
      l.names.shift();
      if (l.names.length === 0) delete l.names;
      return true;
    }
    if (l.commands.shift() !== undefined) return (folded.commands++, true);
    const resolved = l.errors.findIndex((e) => e.resolved);
    if (resolved >= 0) return (l.errors.splice(resolved, 1), folded.errors++, true);
    if (l.errors.shift() !== undefined) return (folded.errors++, true);
    if (l.files.shift() !== undefined) return (folded.files++, true);
    if (l.instructions.shift() !== undefined) return (folded.instructions++, true);
    return false;
  };
  let tokens = ledgerTokens(l, counter);
  while (tokens > budgetTokens) {
    const entries = l.files.length + l.commands.length + l.errors.length + l.instructions.length + (l.names?.length ?? 0);
    if (entries === 0)
      return l.facts
        ? { files: [], commands: [], errors: [], instructions: [], facts: l.facts }
        : { files: [], commands: [], errors: [], instructions: [] };
    const drop = Math.max(1, Math.floor((tokens - budgetTokens) / Math.max(1, tokens / entries) / 2));
    for (let i = 0; i < drop && foldOne(); i++);
    tokens = ledgerTokens(l, counter);
  }
  return l;
}

test('fitLedger folds in bulk what one-at-a-time folding in category order folds, for any ledger and budget', () => {
  const counter = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const word = fc.string({ unit: fc.constantFrom('a', 'b', 'src', '/', '.ts', ' ', 'err', '1'), minLength: 1, maxLength: 8 });
  const ledger = fc.record({
    files: fc.array(
      fc.record({
        path: word,
        read: fc.nat(3),
        edited: fc.nat(3),
        created: fc.nat(1),
        lastAction: fc.constantFrom('read' as const, 'edited' as const, 'created' as const),
      }),
      { maxLength: 40 },
    ),
    commands: fc.array(fc.record({ command: word, exitCode: fc.option(fc.nat(2), { nil: null }) }), { maxLength: 40 }),
    errors: fc.array(fc.record({ text: word, resolved: fc.boolean() }), { maxLength: 40 }),
    instructions: fc.array(word, { maxLength: 20 }),
    facts: fc.option(fc.array(word, { minLength: 1, maxLength: 3 }), { nil: undefined }),
    names: fc.option(fc.array(word, { minLength: 1, maxLength: 30 }), { nil: undefined }),
  });
  fc.assert(
    fc.property(ledger, fc.nat(400), (raw, budget) => {
      const l = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)) as unknown as ArtifactLedger;
      assert.deepEqual(fitLedger(l, budget, counter), referenceFit(l, budget, counter));
    }),
    { numRuns: 400 },
  );
});

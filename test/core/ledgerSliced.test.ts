// The plan's ledger step and the probes in slices (planSteps, scorePlanSteps, ledgerTokensSteps): the
// same results as the synchronous calls (which run the same steps straight through), yielding many times
// over a large history; a long ledger rendering counted in pieces (o200k) equals its count as a whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
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
import { fitLedger, ledgerTokens, ledgerTokensSteps, renderLedger } from '../../src/core/ledger/ledgerMerge';
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

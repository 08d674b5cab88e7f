// The auto-compaction policy in the pipeline (issue 25): "pays" compacts earlier than the threshold when
// the session's numbers say so, not when few calls are expected; minCallsBetween holds back a second
// compaction; the window forces one whatever minCallsBetween says. The decision keeps its numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactionPipeline, type PipelineSettings } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { SessionFileStore } from '../../src/core/session/session';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { TranscriptStore } from '../../src/core/transcripts/transcripts';
import { budgetTrigger } from '../../src/core/pipeline/triggers';
import { call, results, user } from '../helpers/build';

const WINDOW = 200_000;
const STEP_MS = 20_000;

function rig(
  autoCompact: Partial<PipelineSettings['autoCompact']>,
  promptCaching: PipelineSettings['promptCaching'] = '5m',
  window = WINDOW,
) {
  const dir = mkdtempSync(join(tmpdir(), 'sp-pays-'));
  const session = new SessionFileStore(dir).create('s1', 'pays');
  const clock = { now: 0 };
  const pipeline = new CompactionPipeline(
    {
      session,
      transcripts: new TranscriptStore({ dir: join(dir, '.transcripts') }),
      ctx: {
        ...DEFAULT_PLAN_CONTEXT,
        tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
        contextWindow: window,
        maxOutputTokens: 8_192,
        model: 'claude-opus-4-6',
      },
      now: () => clock.now,
    },
    {
      microCompact: { enabled: false, keepRecent: 3, minChars: 100 },
      autoCompact: {
        enabled: true,
        strategy: 'sliding-window',
        params: { maxEvents: 8 },
        trigger: budgetTrigger({ fraction: 0.8 }),
        ...autoCompact,
      },
      promptCaching,
    },
  );
  session.append(user('u0', 'Work through the files.'));
  let n = 0;
  /** One model call: a tool exchange of `chars` appended, then the pipeline's check; returns whether it compacted. */
  const step = async (chars: number): Promise<boolean> => {
    n++;
    session.append(call(`c${n}`, [`t${n}`, 'read_file']), results(`r${n}`, [`t${n}`, 'x'.repeat(chars)]));
    clock.now += STEP_MS;
    const prepared = await pipeline.beforeModelCall();
    if (prepared.compaction && !prepared.compaction.ok && prepared.compaction.reason !== 'noop') assert.fail(prepared.compaction.message);
    return prepared.compaction?.ok === true;
  };
  return { pipeline, session, step, clock };
}

async function firstCompaction(r: ReturnType<typeof rig>, calls: number, chars: number): Promise<number | null> {
  for (let k = 1; k <= calls; k++) if (await r.step(chars)) return k;
  return null;
}

test('pays compacts a long session earlier than the threshold; threshold waits for 80% of the window', async () => {
  // ~1,000 tokens a call (4,000 chars at 4 chars a token): 80% of 200,000 is reached after ~160 calls.
  const pays = rig({ policy: 'pays' });
  const threshold = rig({ policy: 'threshold' });
  const atPays = await firstCompaction(pays, 150, 4_000);
  const atThreshold = await firstCompaction(threshold, 150, 4_000);
  assert.ok(atPays !== null && atPays < 150, `pays compacted at call ${atPays}`);
  assert.equal(atThreshold, null, 'the threshold is not reached in 150 calls');
  const d = pays.pipeline.autoCompactDecision()!;
  assert.equal(d.policy, 'pays');
  assert.ok(d.pays, 'the decision carries its numbers');
  assert.equal(threshold.pipeline.autoCompactDecision()!.pays, null, 'threshold computes no payback');
  for (const r of [pays, threshold]) r.session.dispose();
});

test('pays holds off when few calls are expected: a large context early in a session', async () => {
  const r = rig({ policy: 'pays', params: { maxEvents: 2 } });
  // Three calls of 40,000 tokens each: a large context, but only three calls so far (one expected).
  for (let k = 0; k < 3; k++) assert.equal(await r.step(160_000), false);
  const d = r.pipeline.autoCompactDecision()!;
  assert.equal(d.fire, false);
  assert.ok(d.pays && !d.pays.compact && d.pays.paybackCalls! > d.pays.horizonCalls, JSON.stringify(d.pays));
  assert.match(d.reason, /^not yet: compacting now costs \$\d+\.\d\d and pays back in \d+ calls; expected ≥ 0 more calls/);
  r.session.dispose();
});

test('minCallsBetween holds back a second auto-compaction while the context stays above the threshold', async () => {
  // Threshold 10% of the window with a tail that stays above it: the trigger fires on every call.
  const r = rig({ trigger: budgetTrigger({ fraction: 0.1 }), params: { maxEvents: 40 }, minCallsBetween: 6 });
  const at: number[] = [];
  for (let k = 1; k <= 60; k++) if (await r.step(6_000)) at.push(k);
  assert.ok(at.length >= 2, `compactions at ${at.join(', ')}`);
  for (let i = 1; i < at.length; i++) assert.ok(at[i] - at[i - 1] >= 6, `compactions at ${at.join(', ')}`);
  // Between two of them the trigger fired and was held, and said so.
  const held = rig({ trigger: budgetTrigger({ fraction: 0.1 }), params: { maxEvents: 40 }, minCallsBetween: 6 });
  let sawHeld = false;
  for (let k = 1; k <= 60 && !sawHeld; k++) {
    await held.step(6_000);
    const d = held.pipeline.autoCompactDecision()!;
    if (d.held) {
      sawHeld = true;
      assert.equal(d.fire, false);
      assert.match(d.reason, /^held: \d call(s)? since the last compaction < minCallsBetween 6 \(tokens [\d,]+ >= 20,000/);
    }
  }
  assert.ok(sawHeld);
  for (const x of [r, held]) x.session.dispose();
});

test('a 1M window is held back the same way: one auto-compaction per minCallsBetween calls', async () => {
  // 1% of 1,000,000 = 10,000 tokens; the kept tail (40 events of ~1,500 tokens) stays above it.
  const r = rig({ trigger: budgetTrigger({ fraction: 0.01 }), params: { maxEvents: 40 }, minCallsBetween: 10 }, '5m', 1_000_000);
  const at: number[] = [];
  for (let k = 1; k <= 80; k++) if (await r.step(6_000)) at.push(k);
  assert.ok(at.length >= 2 && at.length <= 7, `compactions at ${at.join(', ')}`);
  for (let i = 1; i < at.length; i++) assert.ok(at[i] - at[i - 1] >= 10, `compactions at ${at.join(', ')}`);
  assert.equal(r.pipeline.autoCompactDecision()!.forcedAtTokens, 971_808);
  r.session.dispose();
});

test('the window forces a compaction whatever minCallsBetween says (any window: no special case)', async () => {
  const r = rig({ minCallsBetween: 1_000 });
  assert.equal(await r.step(400_000), false); // 100,000 tokens: under 80%
  assert.equal(await r.step(400_000), true, 'first compaction: no compaction before, nothing to hold');
  // Right after it, a call that brings the request past the forced limit (200,000 − 8,192 − 20,000).
  assert.equal(await r.step(100_000), false);
  const big = await r.step(720_000); // the kept tail plus 180,000 tokens
  const d = r.pipeline.autoCompactDecision()!;
  assert.equal(d.forced, true, d.reason);
  assert.equal(big, true);
  assert.match(d.reason, /^the window forces it: tokens [\d,]+ >= 171,808/);
  r.session.dispose();
});

test('prompt caching "auto" in the pipeline: the TTL follows the gaps between its calls', async () => {
  const r = rig({ enabled: false }, 'auto');
  assert.equal(r.pipeline.cacheTtl(), '5m', 'no gap yet');
  for (let k = 0; k < 6; k++) {
    r.clock.now += 15 * 60_000; // 15 minutes between calls (plus the step's 20 s)
    await r.step(40_000);
  }
  assert.equal(r.pipeline.cacheTtl(), '1h');
  assert.equal(r.pipeline.cacheTtl('5m'), '5m', 'a fixed setting is kept');
  assert.equal(r.pipeline.cacheTtl('off'), 'off');
  const fast = rig({ enabled: false }, 'auto');
  for (let k = 0; k < 6; k++) await fast.step(40_000);
  assert.equal(fast.pipeline.cacheTtl(), '5m');
  for (const x of [r, fast]) x.session.dispose();
});

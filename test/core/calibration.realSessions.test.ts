// Recorded usage is the ground truth: on the real recorded sessions in test/fixtures/real-sessions/,
// the calibrated estimate of each model call's input, computed only from the
// calls before it, is within 10% of what the API recorded (median per session). Raw o200k is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importSession } from '../../src/core/importers';
import { estimateCalls, estimateErrors, recordedCalls } from '../../src/core/counting/recordedCalls';
import { MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { createTokenizer } from '../../src/core/counting/tokenizers';

const REAL = join(import.meta.dirname ?? __dirname, '..', 'fixtures', 'real-sessions');
const SESSIONS = ['claude-code-cipher-box-a.jsonl', 'claude-code-cipher-box-b.jsonl', 'codex-agentv-a.jsonl', 'codex-agentv-b.jsonl'];
/** Sessions with at least this many recorded calls are held to the target. */
const MIN_CALLS = 20;
const TARGET_MEDIAN = 0.1;
// gpt-tokenizer: the same o200k counts as the default encoder, faster to load.
const counter = new MemoizedMessageCounter(createTokenizer('gpt-tokenizer'));

const percent = (x: number) => `${(x * 100).toFixed(2)}%`;

for (const file of SESSIONS) {
  test(`${file}: the calibrated estimate of each recorded call, from earlier calls only, has a median error within 10%`, (t) => {
    const imported = importSession(readFileSync(join(REAL, file), 'utf8'), file);
    const calls = recordedCalls([...imported.compactions.map((c) => c.before), imported.messages]);
    assert.ok(
      calls.length >= MIN_CALLS,
      `${file}: ${calls.length} recorded calls (usage on assistant messages), expected at least ${MIN_CALLS}`,
    );
    const estimates = estimateCalls(calls, counter);
    const calibrated = estimateErrors(estimates);
    const raw = estimateErrors(estimates.map((e) => ({ ...e, estimated: e.raw })));
    assert.ok(calibrated && raw);
    t.diagnostic(
      `${file}: ${calls.length} calls, ${imported.compactions.length} compaction(s); calibrated median ${percent(calibrated.median)}, ` +
        `worst ${percent(calibrated.worst)}; raw o200k median ${percent(raw.median)}, worst ${percent(raw.worst)}`,
    );
    assert.ok(calibrated.median <= TARGET_MEDIAN, `${file}: median error ${percent(calibrated.median)} > ${percent(TARGET_MEDIAN)}`);
    assert.ok(
      calibrated.median < raw.median,
      `${file}: calibration (${percent(calibrated.median)}) beats raw o200k (${percent(raw.median)})`,
    );
    // Every call but the first of each model has an estimate, and it never came from a later call.
    const models = new Set(estimates.map((e) => e.model));
    assert.equal(estimates.filter((e) => e.estimated === null).length, models.size);
  });
}

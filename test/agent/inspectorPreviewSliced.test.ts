// The inspector panel's preview in slices (previewSliced: the plan's per-message passes prepared in
// slices, then the same planner and view) shows what preview shows: every strategy, on the real recorded
// sessions opened as recordings and on the current session, with the host's settings (ledger, probes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type InspectorService, type InspectedRecording } from '../../src/agent/service/inspectorService';
import { importSession, STRATEGY_NAMES, type Message } from '../../src/core';
import type { PlanView } from '../../src/protocol';
import { syntheticSession } from '../helpers/synthetic';
import { inspectorService } from '../helpers/inspectorService';
import { withEventLoopTurns } from '../helpers/async';

const DIR = 'test/fixtures/real-sessions';
const FIXTURES = ['claude-code-cipher-box-a.jsonl', 'codex-agentv-b.jsonl'];

const open = (name: string): InspectedRecording => {
  const file = join(DIR, name);
  return { source: file, result: importSession(readFileSync(file, 'utf8'), file) };
};

function service(current: InspectedRecording | readonly Message[]): InspectorService {
  return inspectorService({ messages: 'result' in current ? current.result.messages : current });
}

/** The view without what differs run to run: the time it took and the ids of the messages a plan makes. */
function comparable(view: PlanView): unknown {
  const text = JSON.stringify({ ...view, computeMs: 0 });
  return JSON.parse(text.replace(/"(sum|ph)_[0-9a-z]+"/g, '"fresh"'));
}

test('previewSliced shows what preview shows, for every strategy, on recordings and on the current session', async () => {
  let archiving = 0;
  for (const name of FIXTURES) {
    const rec = open(name);
    const s = service(rec);
    for (const target of [{ file: rec, at: null }, { at: null }] as const) {
      for (const strategy of STRATEGY_NAMES) {
        const splitAt = strategy === 'split-at' ? rec.result.messages[Math.floor(rec.result.messages.length / 2)].id : undefined;
        const plain = s.preview(strategy, {}, 1, target, splitAt);
        const sliced = await s.previewSliced(strategy, {}, 1, target, splitAt);
        assert.deepStrictEqual(comparable(sliced), comparable(plain), `${name} ${target.file ? 'recording' : 'current'}: ${strategy}`);
        if (!plain.noop) archiving++;
      }
    }
  }
  assert.ok(archiving > 0, 'some previews archive');
});

test('previewSliced rejects what preview throws (an unknown strategy, a bad parameter)', async () => {
  const s = service(open(FIXTURES[0]));
  await assert.rejects(s.previewSliced('no-such-strategy', {}, 1), /unknown strategy/);
  assert.throws(() => s.preview('sliding-window', { maxEvents: 0 }, 1), /maxEvents/);
  await assert.rejects(s.previewSliced('sliding-window', { maxEvents: 0 }, 1), /maxEvents/);
});

test('previewSliced of a large generated session gives the event loop turns all along and shows what preview shows', async () => {
  const s = service(syntheticSession({ messages: 8_000, seed: 3 }));
  const plain = s.preview('recursive-summarization', {}, 1);
  assert.ok(plain.probes && plain.archivedIds.length > 1_000, 'the preview archives most of the session and probes it');
  const { value: sliced, turns } = await withEventLoopTurns(() => s.previewSliced('recursive-summarization', {}, 1));
  assert.ok(turns > 20, `${turns} turns of the event loop during the preview`);
  assert.deepStrictEqual(comparable(sliced), comparable(plain));
});

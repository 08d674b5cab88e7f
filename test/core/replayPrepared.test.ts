// A prepared recording (prepareReplay: calibration, recorded sizes, the as-recorded replay) serves any number
// of replays: replayPrepared gives what replaySession gives, and an earlier replay on the same prepared
// recording changes nothing of a later one (`splitpoint tune` keeps one per session and worker).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importSession, prepareReplay, replayPrepared, replaySession } from '../../src/core/index';
import { builtinReplayConfigs, resolveReplayConfig } from '../../src/settings/replayConfigs';

const FILE = join('test', 'fixtures', 'real-sessions', 'codex-agentv-a.jsonl');

test('replayPrepared equals replaySession, and reusing the prepared recording changes no result', async () => {
  const session = importSession(readFileSync(FILE, 'utf8'), FILE);
  const configs = [
    ...builtinReplayConfigs(),
    resolveReplayConfig({ name: 'low', autoCompact: { threshold: 0.3, policy: 'pays' }, microCompact: { supersede: true } }, 'low'),
  ];
  const whole = await replaySession(session, configs);
  const prepared = await prepareReplay(session);
  const first = await replayPrepared(prepared, configs);
  // Others in between, in another order.
  await replayPrepared(prepared, [...configs].reverse());
  const again = await replayPrepared(prepared, configs);
  assert.ok(
    whole.configs.some((c) => c.compactions > 0),
    'some configuration compacts (the shared state is exercised)',
  );
  assert.deepEqual(first, whole);
  assert.deepEqual(again, whole);
});

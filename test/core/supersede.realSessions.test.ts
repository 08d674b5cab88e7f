// Superseded results on real recordings, as the importers represent them: Claude Code's Read/Edit/Bash
// and Codex's exec_command/apply_patch. The supersessions named here were checked by hand against the
// recordings; the incremental micro-compactor must then replace exactly what the pure strategy does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importSession } from '../../src/core/importers';
import { recordedTimeline } from '../../src/core/replay/recording';
import { supersessionsOf } from '../../src/core/pipeline/supersede';
import { IncrementalMicroCompactor } from '../../src/core/pipeline/microCompactor';
import { planMicroCompact } from '../../src/core/strategies/microCompact';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import type { Message } from '../../src/core/conversation/conversation';

const REAL = join(import.meta.dirname ?? __dirname, '..', 'fixtures', 'real-sessions');
const timeline = (name: string): Message[] => {
  const file = join(REAL, name);
  return recordedTimeline(importSession(readFileSync(file, 'utf8'), file)).messages;
};

test('Claude Code recording: an Edit makes the earlier Read stale, a Bash command run again supersedes its first run', () => {
  const found = supersessionsOf(timeline('claude-code-cipher-box-b.jsonl'));
  const whats = [...found.values()].map((s) => s.what);
  assert.ok(whats.includes('`pnpm --filter api dev` was run again in call 45'), whats.join('\n'));
  assert.ok(
    whats.some((w) => /apps\/web\/src\/hooks\/useAuth\.ts was edited in call 87$/.test(w)),
    whats.join('\n'),
  );
  assert.ok(
    whats.some((w) => /apps\/api\/src\/auth\/auth\.controller\.ts was read again in call 196$/.test(w)),
    whats.join('\n'),
  );
  assert.equal(found.size, 22);
});

test('Codex recording: apply_patch after reads (paths relative to the workdir), sed re-reads and exec_command re-runs', () => {
  const found = supersessionsOf(timeline('codex-agentv-a.jsonl'));
  const whats = [...found.values()].map((s) => s.what);
  assert.ok(whats.includes('/home/entity/projects/EntityProcess/agentv/STRATEGY.md was read again in call 147'), whats.join('\n'));
  assert.equal(whats.filter((w) => / was edited in call 197$/.test(w)).length, 10, whats.join('\n'));
  assert.equal(whats.filter((w) => w === '`git status --short --branch` was run again in call 35').length, 1);
  assert.equal(found.size, 40);
});

test('on a Codex recording, the incremental view with supersede equals the pure strategy at every step, and replaces superseded results', () => {
  const messages = timeline('codex-agentv-b.jsonl');
  const tokens = new MemoizedMessageCounter(new CharEstimateTokenizer());
  const settings = { keepRecent: 3, minChars: 100, triggerTokens: 25_000, clearAtLeast: 20_000, supersede: true };
  const micro = new IncrementalMicroCompactor(settings, tokens);
  const steps = 6;
  for (let k = 1; k <= steps; k++) {
    const session = messages.slice(0, Math.round((messages.length * k) / steps));
    const before = micro.cleared;
    const pointers = micro.clearedPointers;
    micro.sync(session);
    const plan = planMicroCompact(session, settings, { ...DEFAULT_PLAN_CONTEXT, tokens, microCleared: before, microPointers: pointers });
    assert.deepEqual(micro.messages, plan.output, `step ${k}`);
  }
  const pointered = micro.messages.flatMap((m) => m.truncated?.results.filter((r) => r.superseded) ?? []);
  assert.ok(pointered.length > 0, 'no superseded result became a pointer');
  assert.ok(pointered.every((r) => / was (read again|edited|run again) in call \d+$/.test(r.superseded!)));
});

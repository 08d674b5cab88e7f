// The inspector on recordings: the window from the evidence (a 303,594-token Claude Code call: the 1M
// window, inferred from recorded usage, never over 100%), and previews priced on the recording's
// calibrated counts with the cache its last call left (not assumed). Real and synthetic fixtures read
// from the repository; expectations from their raw lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { windowOf, type InspectedRecording } from '../../src/agent/service/inspectorService';
import { createTokenizer, DEFAULT_TOKENIZER, importSession, MemoizedMessageCounter } from '../../src/core';
import { DEFAULT_HOST_SETTINGS } from '../../src/settings/hostSettings';
import { inspectorService } from '../helpers/inspectorService';

const service = () =>
  inspectorService({
    counter: new MemoizedMessageCounter(createTokenizer(DEFAULT_TOKENIZER)),
    settings: { ...DEFAULT_HOST_SETTINGS, contextWindow: 32_000 },
  });

const open = (file: string): InspectedRecording => ({ source: file, result: importSession(readFileSync(file, 'utf8'), file) });
const lastUsage = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"usage"'))
    .map((l) => JSON.parse(l))
    .filter((j) => j.type === 'assistant' && j.message?.usage)
    .at(-1).message.usage;

test('a Claude Code recording whose call read 303,594 tokens is shown against the 1M window, inferred from recorded usage', () => {
  const file = 'test/fixtures/window-1m/claude-code-1m-window.jsonl';
  const rec = open(file);
  const w = windowOf(rec.result, 32_000);
  assert.deepEqual([w.window, w.source], [1_000_000, 'inferred-from-usage']);
  const view = service().sessionFor(rec);
  assert.equal(view.usage.window, 1_000_000);
  assert.equal(view.usage.windowSource, 'inferred-from-usage');
  assert.match(view.usage.windowNote!, /a recorded call read 303,594 tokens, more than the 200,000 window/);
  const u = lastUsage(file);
  assert.equal(view.usage.recorded?.call.input, u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens);
  assert.ok(view.usage.recorded!.call.input <= view.usage.window, 'never over 100% of its window');
  // A recording within its model's window keeps the model's window, and no note.
  const real = service().sessionFor(open('test/fixtures/real-sessions/claude-code-cipher-box-a.jsonl'));
  assert.deepEqual([real.usage.window, real.usage.windowSource, real.usage.windowNote], [200_000, 'model', undefined]);
});

test('a preview on a recording is priced on its calibrated counts and the cache its last call left, not assumed', () => {
  const file = 'test/fixtures/real-sessions/claude-code-cipher-box-a.jsonl';
  const rec = open(file);
  const s = service();
  const view = s.preview('sliding-window', { maxEvents: 10 }, 1, { file: rec, at: null });
  const u = lastUsage(file);
  const cached = u.cache_read_input_tokens + u.cache_creation_input_tokens;
  assert.ok(view.cost, 'the preview carries its cost');
  assert.equal(view.cost!.cacheAssumed, false);
  assert.equal(view.cost!.priceSource, 'table');
  assert.equal(view.cost!.model, 'claude-opus-4-6');
  // The local count of the context is far below the recorded cache; the calibrated request holds it.
  assert.ok(view.tokensBefore < cached, `${view.tokensBefore} local tokens`);
  assert.ok(Math.abs(view.cost!.cachedPrefixTokens - cached) <= cached * 0.02, `${view.cost!.cachedPrefixTokens} vs ${cached}`);
  assert.ok(
    view.notes.some((n) =>
      n.startsWith(`cache: invalidates ${view.cost!.invalidatedCachedTokens} of ${view.cost!.cachedPrefixTokens} cached`),
    ),
  );
});

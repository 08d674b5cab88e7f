// "Inspect Session File…" (src/agent/service/recordingLoader.ts): a streamed import shown first with estimated
// counts, then again once the host's counting worker has counted every message it can show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HostCounting } from '../../src/agent/loop/hostCounting';
import { loadRecording, messageListsOf } from '../../src/agent/service/recordingLoader';
import type { InspectedRecording } from '../../src/agent/service/inspectorService';
import {
  CharEstimateTokenizer,
  createTokenizer,
  ImportError,
  importSession,
  MemoizedMessageCounter,
  readSessionFile,
} from '../../src/core';

const log = { warn: () => undefined, error: (m: string) => assert.fail(m) };

test('a recording is shown estimated, counted on the worker, then shown exact', async () => {
  const counting = new HostCounting(log);
  try {
    const file = 'test/fixtures/sessions/claude-code-two-compactions.jsonl';
    const shown: Array<{ recording: InspectedRecording; estimated: boolean; counted: boolean }> = [];
    const all = () => messageListsOf(shown[0].recording.result).flat();
    const loaded = await loadRecording(file, {
      countRecording: (result) => counting.prefill(() => messageListsOf(result)),
      show: (recording, estimated) =>
        shown.push({ recording, estimated, counted: shown.length > 0 && all().every((m) => counting.counter.peek(m) !== undefined) }),
    });
    assert.deepEqual(
      shown.map((s) => [s.estimated, s.recording.counter !== undefined, s.counted]),
      [
        [true, true, false],
        [false, false, true],
      ],
    );
    assert.ok(loaded.result.compactions.length >= 2);
    assert.deepEqual(loaded.result, importSession(readSessionFile(file), file), 'the same import as the whole-text path');
    // The estimate counts 4 characters a token; the exact counts are the worker's o200k counts.
    for (const m of loaded.result.messages) {
      assert.equal(shown[0].recording.counter!.countMessage(m), new MemoizedMessageCounter(new CharEstimateTokenizer()).countMessage(m));
      assert.equal(counting.counter.peek(m), new MemoizedMessageCounter(createTokenizer('gpt-tokenizer')).countMessage(m));
    }
  } finally {
    counting.dispose();
  }
});

test('a file that cannot be imported rejects with the ImportError and shows nothing', async () => {
  const counting = new HostCounting(log);
  try {
    let shows = 0;
    await assert.rejects(
      loadRecording('test/fixtures/malformed/truncated-line.jsonl', { countRecording: () => Promise.resolve(), show: () => shows++ }),
      (e: unknown) => e instanceof ImportError && /truncated-line\.jsonl:\d+/.test(e.message),
    );
    assert.equal(shows, 0);
  } finally {
    counting.dispose();
  }
});

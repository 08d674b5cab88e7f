// The request overhead (system prompt and tool definitions) counted ahead on the counting worker: the
// counts overheadParts then returns are the ones its synchronous count gives, and reading them asks the
// worker nothing more (the host's first meter reading, at activation, never waits on the worker).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentFactory } from '../../src/agent/loop/agentFactory';
import { HostCounting } from '../../src/agent/loop/hostCounting';
import { CachingTextTokenizer, createTokenizer, DEFAULT_TOKENIZER, type TextTokenizer } from '../../src/core';
import { DEFAULT_HOST_SETTINGS } from '../../src/settings/hostSettings';

const log = { warn: (m: string) => assert.fail(m), error: (m: string) => assert.fail(m) };

test('overhead counted ahead on the worker equals the synchronous count, and reading it counts nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-overhead-'));
  const deps = { workspaceRoot: join(dir, 'ws'), storageDir: join(dir, 'storage'), trusted: true };
  const expected = new AgentFactory({ ...deps, tokenizer: new CachingTextTokenizer(createTokenizer(DEFAULT_TOKENIZER)) }).overheadParts(
    DEFAULT_HOST_SETTINGS,
  );
  assert.ok(expected.system > 100 && expected.tools > 100, `${JSON.stringify(expected)}: a real prompt and real tools`);

  const counting = new HostCounting(log);
  try {
    // The synchronous path goes through this tokenizer: count what it is asked after the count ahead.
    let asked = 0;
    const watched: TextTokenizer = {
      name: counting.tokenizer.name,
      countText: (text) => {
        asked++;
        return counting.tokenizer.countText(text);
      },
    };
    const factory = new AgentFactory({ ...deps, tokenizer: watched as CachingTextTokenizer });
    await factory.prepareOverhead(DEFAULT_HOST_SETTINGS, counting);
    assert.deepEqual(factory.overheadParts(DEFAULT_HOST_SETTINGS), expected);
    assert.equal(asked, 0, 'no synchronous count after the count ahead');
  } finally {
    counting.dispose();
  }
});

test('a count ahead that fails leaves the synchronous count to do it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-overhead-'));
  const tokenizer = new CachingTextTokenizer(createTokenizer(DEFAULT_TOKENIZER));
  const factory = new AgentFactory({ workspaceRoot: join(dir, 'ws'), storageDir: join(dir, 'storage'), trusted: true, tokenizer });
  await factory.prepareOverhead(DEFAULT_HOST_SETTINGS, { countTexts: () => Promise.reject(new Error('worker gone')) });
  const parts = factory.overheadParts(DEFAULT_HOST_SETTINGS);
  assert.ok(parts.system > 100 && parts.tools > 100, JSON.stringify(parts));
});

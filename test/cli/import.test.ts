// `splitpoint import` loses nothing: on the built CLI, the one output file (Splitpoint JSONL version 2)
// holds the archived history, the recorded compactions and the current context, `inspect` on it answers
// as on the original (apart from `format`), every message of the original appears in it, and importing
// the output again gives the same bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { importSession, type ImportResult, type Message } from '../../src/core';
import { serializeSplitpointSession } from '../../src/core/importers';
import { runBuilt, runJson, scratchDir } from './builtCli';
import { REAL_SESSIONS } from './realSessions';
import { syntheticClaudeCode } from './syntheticSessions';

/** Every message of an import: each compaction's context and summary, then the current context. */
function everyMessage(r: ImportResult): Message[] {
  return [...r.compactions.flatMap((c) => [...c.before, ...c.summary]), ...r.messages];
}

/** The same message, whatever the key order: compare canonical JSON of the parsed line. */
const canonical = (m: Message): string => JSON.stringify(importSession(JSON.stringify(m), 'm.jsonl').messages[0]);

async function assertLossless(file: string): Promise<void> {
  const out = join(await scratchDir(), `${basename(file)}.splitpoint.jsonl`);
  const imported = await runBuilt('import', file);
  assert.equal(imported.code, 0, imported.stderr);
  writeFileSync(out, imported.stdout);

  const [before, after] = await Promise.all([runJson('inspect', file, '--json'), runJson('inspect', out, '--json')]);
  assert.equal(after.format, 'splitpoint-jsonl');
  assert.deepEqual({ ...after, format: before.format }, before, `${file}: inspect differs after import`);

  const original = importSession(readFileSync(file, 'utf8'), file);
  const lines = new Set(imported.stdout.trim().split('\n'));
  const missing = everyMessage(original).filter((m) => !lines.has(canonical(m)));
  assert.deepEqual(
    missing.map((m) => m.id),
    [],
    `${file}: messages missing from the import`,
  );
  const back = importSession(imported.stdout, out);
  assert.deepEqual(back.compactions, original.compactions);
  assert.deepEqual(back.messages, original.messages);

  const again = await runBuilt('import', out);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, imported.stdout, `${file}: importing the output again changes it`);
}

for (const s of REAL_SESSIONS) {
  test(`import ${s.file} loses nothing: inspect answers the same, every message is there, a second import is identical`, async () => {
    await assertLossless(s.file);
  });
}

test('import of a synthetic Claude Code session with two compactions loses nothing', async () => {
  const file = join(await scratchDir(), 'synthetic-claude-import.jsonl');
  writeFileSync(file, syntheticClaudeCode().text);
  await assertLossless(file);
  const header = JSON.parse((await runBuilt('import', file)).stdout.split('\n')[0]);
  assert.deepEqual([header.type, header.version, header.importedFrom], ['splitpoint.header', 2, 'claude-code-jsonl']);
});

test('import keeps a message shared between a compaction’s context and its replacement history, and a restarted context', async () => {
  const p1: Message = { id: 'p1', role: 'user', content: 'first prompt' };
  const a1: Message = {
    id: 'a1',
    role: 'assistant',
    content: 'done',
    usage: { inputTokens: 5, cacheReadTokens: 500, cacheCreationTokens: 0, outputTokens: 9, model: 'gpt-5' },
  };
  const p2: Message = { id: 'p2', role: 'user', content: 'second prompt' };
  const s1: Message = { id: 's1', role: 'user', content: 'summary', synthetic: 'summary' };
  const a2: Message = { id: 'a2', role: 'assistant', content: 'ok' };
  const stub: Message = { id: 'c1', role: 'user', content: '<command-name>/status</command-name>', artefact: 'command' };
  const text = serializeSplitpointSession({
    importedFrom: 'codex-rollout-jsonl',
    contextWindow: 100_000,
    compactions: [
      { source: 'codex-rollout-jsonl', trigger: 'auto', preTokens: 90_000, line: 7, before: [p1, a1, p2], summary: [p1, s1] },
      // A context that does not continue the summary (say, after a rollback): written after a restart line.
      { source: 'codex-rollout-jsonl', trigger: 'manual', preTokens: null, line: 12, before: [s1, stub, a2], summary: [p1, s1] },
    ],
    messages: [p1, s1, p2, a2],
    warnings: ['rollout.jsonl:9: rolled back 1 turn'],
  });
  const file = join(await scratchDir(), 'shared.splitpoint.jsonl');
  writeFileSync(file, text);
  await assertLossless(file);
  const r = await runJson<{ compactions: unknown[]; genuinePrompts: number; warnings: string[]; contextWindow: number }>(
    'inspect',
    file,
    '--json',
  );
  assert.equal(r.compactions.length, 2);
  // p1 and p2 typed once each; p1's copies in the replacement histories and the command stub are not prompts.
  assert.equal(r.genuinePrompts, 2);
  assert.deepEqual(r.warnings, ['rollout.jsonl:9: rolled back 1 turn']);
  assert.equal(r.contextWindow, 100_000);
});

// Issue 23 item 5: what an imported session's harness injected as the project's standing instructions
// (Codex's AGENTS.md injection and <user_instructions>, Claude Code's CLAUDE.md memory) is an
// 'instructions' artefact, shown as its own kind in the inspector, never a message a person typed.
// Expectations on the real Codex rollouts are read from their raw lines, independently of the importer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isTurnStart, kindOf, textOf, type Message } from '../../../src/core/conversation/conversation';
import { genuinePromptCount, importSession } from '../../../src/core/importers';
import { artefactKindOf } from '../../../src/core/importers/claudeCodeArtefacts';

const REAL = join(import.meta.dirname ?? __dirname, '..', '..', 'fixtures', 'real-sessions');
const INJECTION = /^\s*(# AGENTS\.md instructions for |<user_instructions>)/;

interface RawInjections {
  /** Texts of the user input_text parts that are AGENTS.md / user-instructions injections, live lines only. */
  live: string[];
  /** The same injections inside compacted lines' replacement histories. */
  carried: string[];
  /** What a person typed (event_msg user_message). */
  typed: Set<string>;
}

function readRaw(file: string): RawInjections {
  const raw: RawInjections = { live: [], carried: [], typed: new Set() };
  const userTexts = (m: { role?: string; content?: Array<{ type: string; text?: string }> }) =>
    m.role === 'user' ? (m.content ?? []).filter((c) => c.type === 'input_text' && c.text !== undefined).map((c) => c.text as string) : [];
  for (const json of readFileSync(join(REAL, file), 'utf8').split('\n')) {
    if (json.trim() === '') continue;
    const line = JSON.parse(json) as { type: string; payload: Record<string, unknown> };
    if (line.type === 'response_item' && line.payload.type === 'message')
      raw.live.push(...userTexts(line.payload as Parameters<typeof userTexts>[0]).filter((t) => INJECTION.test(t)));
    if (line.type === 'compacted')
      for (const m of (line.payload.replacement_history ?? []) as Array<Parameters<typeof userTexts>[0]>)
        raw.carried.push(...userTexts(m).filter((t) => INJECTION.test(t)));
    if (line.type === 'event_msg' && line.payload.type === 'user_message' && typeof line.payload.message === 'string')
      raw.typed.add(line.payload.message);
  }
  return raw;
}

for (const file of ['codex-agentv-a.jsonl', 'codex-agentv-b.jsonl']) {
  test(`${file}: the AGENTS.md injection (live and carried by every compaction) is an instructions segment, never a genuine prompt`, () => {
    const raw = readRaw(file);
    assert.ok(raw.live.length >= 1, 'the rollout injects AGENTS.md');
    assert.ok(raw.carried.length >= 1, 'a compaction carries the injection');
    const r = importSession(readFileSync(join(REAL, file), 'utf8'), file);
    const contexts: Message[][] = [...r.compactions.map((c) => c.before), ...r.compactions.map((c) => c.summary), r.messages];
    const all = contexts.flat();
    const instructions = all.filter((m) => m.artefact === 'instructions');
    // Every injection of the raw file is an instructions segment, with its text verbatim.
    for (const text of [...raw.live, ...raw.carried])
      assert.ok(
        instructions.some((m) => textOf(m).includes(text.trim().slice(0, 2_000))),
        `an instructions segment holds ${JSON.stringify(text.slice(0, 60))}`,
      );
    assert.ok(instructions.every((m) => m.role === 'user' && kindOf(m) === 'instructions' && !isTurnStart(m)));
    // No message whose text starts with the injection is a prompt.
    assert.equal(all.filter((m) => isTurnStart(m) && INJECTION.test(textOf(m))).length, 0);
    // The genuine prompts are what a person typed (the injection is no user_message event).
    assert.equal([...raw.typed].filter((t) => INJECTION.test(t)).length, 0);
    assert.equal(genuinePromptCount(r).total, raw.typed.size);
  });
}

test('Claude Code: the CLAUDE.md user context and a nested_memory attachment are instructions; other reminders stay notifications', () => {
  const claudeMd =
    "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\n" +
    'Codebase and user instructions are shown below.\n\n' +
    'Contents of /repo/CLAUDE.md (project instructions, checked into the codebase):\n\nUse pnpm.\n</system-reminder>';
  assert.equal(artefactKindOf(claudeMd, true), 'instructions');
  assert.equal(artefactKindOf('<system-reminder>\nThe date has changed.\n</system-reminder>', true), 'notification');
  const line = (o: Record<string, unknown>) =>
    JSON.stringify({ sessionId: 's', cwd: '/repo', timestamp: '2026-01-01T00:00:00.000Z', isSidechain: false, ...o });
  const text = [
    line({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'Fix the build.' } }),
    line({
      type: 'attachment',
      uuid: 'a1',
      parentUuid: 'u1',
      attachment: {
        type: 'nested_memory',
        path: '/repo/pkg/CLAUDE.md',
        content: { path: '/repo/pkg/CLAUDE.md', content: 'Never edit dist/.' },
      },
    }),
    line({ type: 'user', uuid: 'u2', parentUuid: 'a1', isMeta: true, message: { role: 'user', content: claudeMd } }),
  ].join('\n');
  const r = importSession(text, 'session.jsonl');
  const kinds = r.messages.map((m) => [kindOf(m), textOf(m).includes('Never edit dist/.') || textOf(m).includes('Use pnpm.')]);
  assert.deepEqual(kinds, [
    ['user-prompt', false],
    ['instructions', true],
    ['instructions', true],
  ]);
  assert.equal(genuinePromptCount(r).total, 1);
});

// The Claude Code importer on the real recorded sessions in test/fixtures/real-sessions/.
// Expectations are derived from the raw lines here, independently of the importer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isTurnStart, textOf, toApiMessages, toolResults, toolUses, type Message } from '../../../src/core/conversation/conversation';
import { requestViolations } from '../../../src/core/conversation/invariants';
import { genuinePromptCount, importSession } from '../../../src/core/importers';
import { MemoizedMessageCounter } from '../../../src/core/counting/tokens';
import { createTokenizer } from '../../../src/core/counting/tokenizers';

const REAL = join(import.meta.dirname ?? __dirname, '..', '..', 'fixtures', 'real-sessions');
const SESSIONS = ['claude-code-cipher-box-a.jsonl', 'claude-code-cipher-box-b.jsonl', 'claude-code-cipher-box-c.jsonl'];
const counter = new MemoizedMessageCounter(createTokenizer('gpt-tokenizer'));

interface Raw {
  line: number;
  v: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- raw recorded JSON
}

function rawLines(text: string): Raw[] {
  return text
    .split('\n')
    .map((s, i) => ({ s, line: i + 1 }))
    .filter(({ s }) => s.trim() !== '')
    .map(({ s, line }) => ({ line, v: JSON.parse(s) as Record<string, unknown> }));
}

function rawText(v: Raw['v']): string {
  const c = v.message?.content;
  if (typeof c === 'string') return c;
  return Array.isArray(c)
    ? c
        .filter((b) => b.type === 'text')
        .map((b) => b.text as string)
        .join('\n')
    : '';
}

function hasResults(v: Raw['v']): boolean {
  return Array.isArray(v.message?.content) && v.message.content.some((b: { type: string }) => b.type === 'tool_result');
}

/** A background-task record Claude Code keeps in its queue: `{"task_id": …}` as JSON text. */
function isTaskRecord(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && 'task_id' in v;
  } catch {
    return false;
  }
}

/**
 * Prompts a person typed, from the raw lines: plain user lines (not tool results, not meta, not compact
 * summaries, not harness text in tags or brackets), a custom slash command once (its stub, answered by a meta
 * template body), and typed queued prompts (enqueued text that is no task record, no notification, no
 * built-in command, and never written as a user line: a dequeued prompt is counted at its user line).
 */
function typedPrompts(lines: readonly Raw[]): number {
  const userTexts = new Set(lines.filter((l) => l.v.type === 'user' && !l.v.isMeta).map((l) => rawText(l.v).trim()));
  const bodies = new Set(lines.filter((l) => l.v.type === 'user' && l.v.isMeta).map((l) => l.v.parentUuid as string));
  let n = 0;
  for (const { v } of lines) {
    if (v.type === 'queue-operation' && v.operation === 'enqueue' && typeof v.content === 'string') {
      const text = v.content.trim();
      if (
        !isTaskRecord(text) &&
        !text.startsWith('<task-notification>') &&
        !/^\/(model|clear|compact)\b/.test(text) &&
        !userTexts.has(text)
      )
        n++;
    }
    if (v.type !== 'user' || v.isSidechain || v.isCompactSummary || v.isMeta || hasResults(v)) continue;
    const text = rawText(v).trim();
    if (text.includes('<command-name>')) n += bodies.has(v.uuid as string) ? 1 : 0;
    else if (text !== '' && !text.startsWith('<') && !text.startsWith('[')) n++;
  }
  return n;
}

function assertValid(messages: Message[]): void {
  assert.deepEqual(requestViolations(toApiMessages(messages)), []);
  assert.equal(messages[0].role, 'user');
}

for (const name of SESSIONS) {
  test(`real session ${name}: the recorded compaction archives the history; the current context is its summary plus what followed`, () => {
    const text = readFileSync(join(REAL, name), 'utf8');
    const raw = rawLines(text);
    const r = importSession(text, name);
    assert.equal(r.format, 'claude-code-jsonl');

    const boundaries = raw.filter((l) => l.v.type === 'system' && l.v.subtype === 'compact_boundary');
    assert.equal(boundaries.length, 1);
    assert.deepEqual(
      r.compactions.map((c) => [c.line, c.trigger, c.preTokens]),
      boundaries.map((b) => [b.line, b.v.compactMetadata.trigger, b.v.compactMetadata.preTokens]),
    );
    const [c] = r.compactions;
    const summaryLine = raw.find((l) => l.v.isCompactSummary === true);
    assert.ok(summaryLine);
    assert.equal(r.messages[0].id, summaryLine.v.uuid);
    assert.equal(r.messages[0].synthetic, 'summary');
    assert.deepEqual(c.summary, [r.messages[0]]);

    // Every message comes from its side of the boundary.
    const lineOf = new Map(raw.filter((l) => typeof l.v.uuid === 'string').map((l) => [l.v.uuid as string, l.line]));
    const at = (m: Message): number => lineOf.get(m.id) ?? Number(/^claude_(\d+)_/.exec(m.id)?.[1]);
    assert.ok(c.before.every((m) => at(m) < c.line));
    assert.ok(r.messages.every((m) => at(m) > c.line));

    // Genuine prompts: every one the person typed, none of the artefacts, none of the queue's task records.
    const history = [...c.before, ...r.messages];
    assert.equal(history.filter(isTurnStart).length, typedPrompts(raw));
    assert.equal(genuinePromptCount(r).total, typedPrompts(raw));
    assert.deepEqual(
      history.filter((m) => textOf(m).trimStart().startsWith('{"task_id"')).map((m) => m.id),
      [],
      'a background-task record is never a message',
    );
    assert.equal(r.messages.filter(isTurnStart).length, typedPrompts(raw.filter((l) => l.line > c.line)));

    // No tool pair dropped: every call with a recorded result is there, with its result; the one call the
    // recording never answered is reported at its line.
    const resultIds = new Set(
      raw.flatMap((l) => (hasResults(l.v) ? l.v.message.content.map((b: { tool_use_id?: string }) => b.tool_use_id) : [])),
    );
    const calls = raw.flatMap((l) =>
      l.v.type === 'assistant' && Array.isArray(l.v.message.content)
        ? l.v.message.content
            .filter((b: { type: string }) => b.type === 'tool_use')
            .map((b: { id: string }) => ({ id: b.id, line: l.line }))
        : [],
    );
    const imported = new Set(history.flatMap((m) => toolUses(m).map((u) => u.id)));
    const importedResults = new Set(history.flatMap((m) => toolResults(m).map((b) => b.tool_use_id)));
    for (const call of calls) assert.equal(imported.has(call.id), resultIds.has(call.id), call.id);
    for (const id of resultIds) assert.ok(importedResults.has(id), id);
    const unanswered = calls.filter((call) => !resultIds.has(call.id));
    assert.deepEqual(
      r.warnings,
      unanswered.map((call) => `${name}:${call.line}: tool call ${call.id} (Bash) has no result; dropped`),
    );

    // Recorded usage: one per model response, on the assistant messages; the model of the last call.
    const responses = new Set(
      raw.filter((l) => l.v.type === 'assistant' && l.v.message.model !== '<synthetic>').map((l) => l.v.message.id),
    );
    const withUsage = history.filter((m) => m.usage);
    assert.equal(withUsage.length, responses.size);
    assert.ok(withUsage.every((m) => m.role === 'assistant'));
    assert.equal(r.model, raw.filter((l) => l.v.type === 'assistant').at(-1)?.v.message.model);

    // The current context is far smaller than the full history the model no longer sees.
    const current = counter.countMessages(r.messages);
    const full = counter.countMessages(history);
    assert.ok(current < full / 2, `current ${current} vs full history ${full}`);
    assert.ok(current < c.preTokens!, `current ${current} vs recorded pre-compaction ${c.preTokens}`);

    assertValid(c.before);
    assertValid(r.messages);
  });
}

// The import on small recordings of the cases the real sessions showed wrong (test/fixtures/import-cases/,
// see its README): what a person typed is a genuine prompt, once; what the model read is in the context as
// Claude Code rendered it; what the model never read is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isTurnStart, kindOf, textOf, type Message } from '../../../src/core/conversation/conversation';
import { genuinePromptCount, importSession, serializeImportResult, type ImportResult } from '../../../src/core/importers';
import { typedCommand } from '../../../src/core/importers/claudeCodeArtefacts';
import { rawLedger } from '../../../src/core/ledger/ledgerExtract';
import { assertValid, fixture, FIXTURES, importError } from '../importersSupport';

const load = (name: string): ImportResult => importSession(readFileSync(join(FIXTURES, 'import-cases', name), 'utf8'), name);
const prompts = (messages: readonly Message[]): string[] => messages.filter(isTurnStart).map((m) => textOf(m));
const kinds = (messages: readonly Message[]): string[] => messages.map((m) => `${m.id} ${kindOf(m)}${m.artefact ? `:${m.artefact}` : ''}`);

test('background-task queue records are never prompts nor context; a bare remove takes the typed prompt; a notification stays one', () => {
  const name = 'claude-background-tasks.jsonl';
  const r = load(name);
  assert.deepEqual(prompts(r.messages), ['Build all packages and run the tests.', 'also check the lint warnings']);
  assert.deepEqual(kinds(r.messages), [
    'b01 user-prompt',
    'b02 tool-call',
    'b03 tool-result',
    'b04 tool-call',
    'b05 tool-result',
    'claude_8_queued user-prompt', // read after the results, before the next response
    'b06 assistant-text',
    'b07 artefact:notification', // the dequeued notification, sent as a user line
    'b08 assistant-text',
  ]);
  assert.ok(r.messages.every((m) => !textOf(m).includes('"task_id"')));
  assert.deepEqual(genuinePromptCount(r), { total: 2, rolledBack: 0 });
  assert.deepEqual(r.warnings, []);
  assertValid(r.messages);
});

test('a queued built-in command (/model) is run by Claude Code, never a prompt; the prompt queued after it is', () => {
  const name = 'claude-queued-local-command.jsonl';
  const r = load(name);
  assert.deepEqual(prompts(r.messages), ['Refactor the cart module.', 'keep the public API unchanged']);
  assert.ok(r.messages.every((m) => !textOf(m).includes('/model')));
  assert.deepEqual(r.warnings, [`${name}:3: queued command /model is run by Claude Code itself, never sent to the model; skipped`]);
  assertValid(r.messages);
});

test('a queued prompt recorded by enqueue, a queued_command attachment and a remove is imported once, in either order', () => {
  const r = load('claude-queued-attachment.jsonl');
  assert.deepEqual(prompts(r.messages), [
    'Fix the failing test.',
    'the failure is in rounding',
    "use banker's rounding",
    'why is the total off here?\n[image]', // the queue's "[Image #1] …" text is the same prompt
  ]);
  assert.equal(r.messages.filter((m) => textOf(m) === 'the failure is in rounding').length, 1);
  assert.equal(r.messages.filter((m) => textOf(m) === "use banker's rounding").length, 1);
  assert.deepEqual(
    r.messages.filter(isTurnStart).map((m) => m.id),
    ['a01', 'a04', 'a07', 'a10'], // the attachment gives each its id (a07: written after its remove)
  );
  assert.deepEqual(r.warnings, []);
  assertValid(r.messages);
});

test('a custom slash command is one genuine prompt (what was typed); its template expansion stays in the context as meta', () => {
  const r = load('claude-slash-command.jsonl');
  assert.deepEqual(kinds(r.messages), [
    's01 user-prompt',
    's02 artefact:meta',
    's03 assistant-text',
    's04 user-prompt',
    's05 assistant-text',
  ]);
  assert.equal(typedCommand(textOf(r.messages[0])), '/gsd:progress phase 12');
  assert.ok(textOf(r.messages[1]).includes('Check project progress for phase 12'), 'the expansion the model read');
  assert.deepEqual(genuinePromptCount(r), { total: 2, rolledBack: 0 });
});

test('attachments that carry text are in the context as Claude Code renders them; one with none is reported', () => {
  const name = 'claude-attachments.jsonl';
  const r = load(name);
  assert.deepEqual(kinds(r.messages), [
    'x01 user-prompt',
    'x02 artefact:attachment',
    'x03 artefact:notification',
    'x04 artefact:notification',
    'x05 artefact:notification',
    'x06 artefact:notification',
    'x08 artefact:attachment',
    'x10 artefact:attachment',
    'x09 assistant-text',
  ]);
  const text = (id: string): string => textOf(r.messages.find((m) => m.id === id) as Message);
  assert.equal(
    text('x02'),
    '<system-reminder>\nThe following skills were invoked in this session. Continue to follow these guidelines:\n\n' +
      '### Skill: frontend-design\nPath: /home/dev/.claude/skills/frontend-design/SKILL.md\n\n' +
      'Use the design tokens in tokens.css.\nNever inline colours.\n</system-reminder>',
  );
  assert.ok(text('x03').startsWith("<system-reminder>\nThe task tools haven't been used recently."));
  assert.ok(
    text('x03').endsWith('Here are the existing tasks:\n\n#1. [in_progress] Port the cart\n#2. [pending] Write tests\n</system-reminder>'),
  );
  assert.equal(
    text('x04'),
    "<system-reminder>\nThe date has changed. Today's date is now 2026-06-02. DO NOT mention this to the user explicitly " +
      'because they are already aware.\n</system-reminder>',
  );
  assert.equal(
    text('x05'),
    '<system-reminder>\nThe following deferred tools are now available via ToolSearch:\nmcp__github__search_issues\n</system-reminder>',
  );
  assert.equal(
    text('x06'),
    '<system-reminder>\nAvailable agent types for the Agent tool:\n- Explore: Fast agent for exploring codebases\n\n' +
      'Launch multiple agents concurrently whenever possible, to maximize performance; to do that, use a single message ' +
      'with multiple tool uses.\n</system-reminder>',
  );
  // A type whose wording is unknown: every text it records, under its field names.
  assert.equal(
    text('x08'),
    '<system-reminder>\nfrobnicate_notice:\nnotice.title: Heads up\nnotice.body: The staging database is read-only today.\n</system-reminder>',
  );
  assert.equal(
    text('x10'),
    '<system-reminder>\nNote: /home/dev/app/cart.ts was modified, either by the user or by a linter. This change was ' +
      "intentional, so make sure to take it into account as you proceed (ie. don't revert it unless the user asks you to). " +
      "Don't tell the user this, since they are already aware. Here are the relevant changes (shown with line numbers):\n" +
      '    12→export const TAX = 0.2;\n</system-reminder>',
  );
  assert.deepEqual(r.warnings, [
    `${name}:7: skipped 1 attachment line(s) of type command_permissions with no text for the model (lines 7)`,
  ]);
  assert.deepEqual(genuinePromptCount(r), { total: 1, rolledBack: 0 });
  assertValid(r.messages);
});

test('a preservedSegment is in the current context after the summary, not only archived; its calls are not counted twice', () => {
  const r = load('claude-preserved-segment.jsonl');
  assert.equal(r.compactions.length, 1);
  const [c] = r.compactions;
  assert.deepEqual(
    c.before.map((m) => m.id),
    ['p01', 'p02', 'p03', 'p04', 'p05', 'p06', 'p07', 'p08'],
  );
  assert.deepEqual(
    r.messages.map((m) => m.id),
    ['p10', 'p05', 'p06', 'p07', 'p08', 'p11', 'p12'],
  );
  assert.equal(r.messages[0].synthetic, 'summary');
  assert.deepEqual(c.summary, [r.messages[0]]);
  assert.deepEqual(prompts(r.messages), ['Now add tests.', 'Commit it.']);
  // The kept responses were recorded before the compaction: their usage is on the archived copies only.
  assert.deepEqual(
    r.messages.filter((m) => m.usage).map((m) => m.id),
    ['p12'],
  );
  assert.deepEqual(
    c.before.filter((m) => m.usage).map((m) => m.id),
    ['p02', 'p04', 'p06', 'p08'],
  );
  assert.deepEqual(genuinePromptCount(r), { total: 3, rolledBack: 0 });
  assert.deepEqual(r.warnings, []);
  assertValid(r.messages);
});

test('a preservedSegment whose lines do not lead back to its head keeps nothing, with a warning', () => {
  const name = 'claude-preserved-segment.jsonl';
  const text = readFileSync(join(FIXTURES, 'import-cases', name), 'utf8').replace('"headUuid":"p05"', '"headUuid":"p99"');
  const r = importSession(text, name);
  assert.deepEqual(
    r.messages.map((m) => m.id),
    ['p10', 'p11', 'p12'],
  );
  assert.deepEqual(r.warnings, [
    `${name}:9: compactMetadata.preservedSegment: the lines from p08 do not lead back to p99; nothing kept through the compaction`,
  ]);
});

test('a prompt a rewind removed (Claude Code) or a rollback removed (Codex) still counts as typed, flagged as rolled back', () => {
  const claude = load('claude-rewind.jsonl');
  assert.deepEqual(prompts(claude.messages), ['List the routes.', 'Rename the admin route to /manage.']);
  assert.deepEqual(
    claude.rolledBackPrompts?.map((m) => [m.id, textOf(m)]),
    [['r03', 'Delete the admin route.']],
  );
  assert.deepEqual(genuinePromptCount(claude), { total: 3, rolledBack: 1 });

  const name = 'codex-rollback.jsonl';
  const codex = importSession(fixture('sessions', name), name);
  assert.deepEqual(prompts(codex.messages), ['Rename foo to bar in utils.ts.', 'Actually, only rename baz in src/.']);
  assert.deepEqual(
    codex.rolledBackPrompts?.map((m) => textOf(m)),
    ['Also rename baz to qux.', 'And delete the old tests.'],
  );
  assert.deepEqual(genuinePromptCount(codex), { total: 4, rolledBack: 2 });
  // A session without a rollback has no such list.
  assert.equal(load('claude-slash-command.jsonl').rolledBackPrompts, undefined);
});

test('rolled-back prompts survive a Splitpoint session round trip; a malformed one is refused with its field', () => {
  const r = load('claude-rewind.jsonl');
  const back = importSession(serializeImportResult(r), 'rewind.splitpoint.jsonl');
  assert.deepEqual(back.rolledBackPrompts, r.rolledBackPrompts);
  assert.deepEqual(genuinePromptCount(back), { total: 3, rolledBack: 1 });
  const bad = serializeImportResult(r).replace('"id":"r03"', '"id":""');
  assert.equal(importError(bad, 'bad.jsonl').message, 'bad.jsonl:1: rolledBackPrompts[0].id: expected a non-empty string, got ""');
});

test('the artifact ledger records an image Codex opened by path (view_image) as a file read', () => {
  const r = load('codex-view-image.jsonl');
  assert.deepEqual(r.warnings, []);
  assert.deepEqual(rawLedger(r.messages).files, [{ path: '/srv/app/docs/header.png', read: 1, edited: 0, created: 0, lastAction: 'read' }]);
});

// The Claude Code importer on synthetic fixtures (one per case) and usage details; the real recorded
// sessions are in claudeCodeReal.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isTurnStart, kindOf, textOf, toApiMessages, type Message } from '../../../src/core/conversation/conversation';
import { requestViolations } from '../../../src/core/conversation/invariants';
import { importSession, type ImportResult } from '../../../src/core/importers';
import { typedCommand } from '../../../src/core/importers/claudeCodeArtefacts';

const SESSIONS = join(import.meta.dirname ?? __dirname, '..', '..', 'fixtures', 'sessions');

function load(name: string): ImportResult {
  return importSession(readFileSync(join(SESSIONS, name), 'utf8'), name);
}

function assertValid(messages: Message[]): void {
  assert.deepEqual(requestViolations(toApiMessages(messages)), []);
  assert.equal(messages[0]?.role, 'user');
}

/** Role, kind and artefact of each message, e.g. "user prompt", "user artefact:command". */
function kinds(messages: readonly Message[]): string[] {
  return messages.map((m) => `${m.role} ${kindOf(m)}${m.artefact ? `:${m.artefact}` : ''}`);
}

function prompts(messages: readonly Message[]): string[] {
  return messages.filter(isTurnStart).map((m) => textOf(m));
}

test('queued prompts are genuine prompts in the place the model read them: after the tool results, before the next response', () => {
  const r = load('claude-code-queued.jsonl');
  assert.deepEqual(kinds(r.messages), [
    'user user-prompt',
    'assistant tool-call',
    'user tool-result',
    'user user-prompt', // 2.1.x: only enqueue + remove record it
    'assistant tool-call',
    'user tool-result',
    'user user-prompt', // newer: enqueue + remove + queued_command attachment, read once
    'user artefact:notification', // a queued task notification is not a prompt
    'assistant assistant-text',
    'user user-prompt', // dequeued: the user line that follows is the prompt, not a second copy
    'assistant tool-call',
    'user tool-result',
    'assistant assistant-text',
  ]);
  assert.deepEqual(prompts(r.messages), [
    'Run the test suite and fix what fails.',
    'skip the e2e tests, they need a browser',
    'the failure is in the discount rounding',
    'now commit it',
  ]);
  assert.equal(r.messages[6].id, 'q07', 'the attachment line gives the queued prompt its id');
  assert.deepEqual(r.warnings, ['claude-code-queued.jsonl:18: queued prompt taken back into the input box (line 19), never sent; skipped']);
  assertValid(r.messages);
});

test('tool results written before their tool_use line are re-linked, none dropped', () => {
  const name = 'claude-code-out-of-order.jsonl';
  const r = load(name);
  assert.deepEqual(
    r.messages.map((m) => `${m.role} ${textOf(m).replace(/\n/g, ' | ')}`),
    [
      'user Compare the two config files.',
      'assistant Reading both. | [tool_use Read {"file_path":"a.yml"}] | [tool_use Read {"file_path":"b.yml"}]',
      'user port: 80 | port: 8080',
      'assistant [tool_use Edit {"file_path":"a.yml"}]',
      'user 1 line changed',
      'assistant a.yml now uses 8080 too.',
    ],
  );
  assert.deepEqual(r.warnings, [
    `${name}:3: tool result written before the line it answers (line 4); read after it`,
    `${name}:7: tool result written before the line it answers (line 8); read after it`,
  ]);
  assertValid(r.messages);
  // The same lines in chain order import to the same messages (ids and content), with no warning.
  const lines = readFileSync(join(SESSIONS, name), 'utf8').trim().split('\n');
  const ordered = [lines[0], lines[1], lines[3], lines[2], lines[4], lines[5], lines[7], lines[6], lines[8]].join('\n');
  const inOrder = importSession(ordered, 'ordered.jsonl');
  assert.deepEqual(inOrder.messages, r.messages);
  assert.deepEqual(inOrder.warnings, []);
});

test('artefacts are classified, shown, and never genuine prompts; a custom slash command is one prompt, its stub', () => {
  const r = load('claude-code-artefacts.jsonl');
  assert.deepEqual(
    r.messages.map((m) => `${m.id} ${kindOf(m)}${m.artefact ? `:${m.artefact}` : ''}`),
    [
      'x01 artefact:meta', // <local-command-caveat>, isMeta
      'x02 artefact:command', // /clear stub
      'x03 artefact:command-output',
      'x04 user-prompt', // /review stub: what the person typed, the prompt
      'x05 artefact:meta', // its template expansion: read by the model, not typed
      'x06 tool-call',
      'x07 tool-result',
      'x08 artefact:meta', // a skill body the model's Skill call loaded
      'x09 tool-call',
      'x10 tool-result',
      'x11 artefact:interruption',
      'x12 user-prompt',
      'x13 assistant-text',
      'x14 artefact:notification', // <task-notification>
      'x15 artefact:notification', // only a <system-reminder>
      'x16 artefact:notification', // hook output
      'x17 artefact:shell-input',
      'x18 artefact:shell-input',
      'x19 user-prompt', // a real prompt with a reminder appended stays a prompt
      'x20 assistant-text',
    ],
  );
  assert.deepEqual(prompts(r.messages), [
    '<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>src/cart.ts</command-args>',
    'No need to run that. Just read the file.',
    'Thanks. <system-reminder>a reminder after a real prompt</system-reminder>',
  ]);
  assert.equal(typedCommand(textOf(r.messages[3])), '/review src/cart.ts', 'what the person typed');
  assert.equal(typedCommand(textOf(r.messages[1])), '/clear');
  assert.equal(typedCommand(textOf(r.messages[11])), undefined);
  assert.deepEqual(r.warnings, []);
  assertValid(r.messages);
});

test('two compactions in a row: each archives the context since the one before; the current context is the last summary plus what followed', () => {
  const name = 'claude-code-two-compactions.jsonl';
  const r = load(name);
  assert.equal(r.compactions.length, 2);
  const [first, second] = r.compactions;
  const recorded = readFileSync(join(SESSIONS, name), 'utf8').split('\n');
  const stamp = (line: number): number => Date.parse((JSON.parse(recorded[line - 1]) as { timestamp: string }).timestamp);
  assert.deepEqual(
    r.compactions.map((c) => [c.source, c.trigger, c.preTokens, c.line, c.at]),
    [
      ['claude-code-jsonl', 'auto', 155000, 6, stamp(6)],
      ['claude-code-jsonl', 'manual', 41000, 13, stamp(13)],
    ],
  );
  assert.deepEqual(
    first.before.map((m) => m.id),
    ['t01', 't02', 't04', 't05'],
  );
  assert.deepEqual(
    first.summary.map((m) => [m.id, m.synthetic]),
    [['t07', 'summary']],
  );
  // The second compaction archives the first summary and everything after it, up to the /compact stub.
  assert.deepEqual(
    second.before.map((m) => m.id),
    ['t07', 't08', 't09', 't10', 't11', 't12'],
  );
  assert.deepEqual(second.before[0], first.summary[0]);
  assert.deepEqual(second.summary, [r.messages[0]]);
  assert.deepEqual(kinds(r.messages), [
    'user summary',
    'user artefact:command-output',
    'user artefact:attachment', // the file Claude Code re-attached after compacting
    'user artefact:attachment', // a reference to a file it did not re-attach
    'user user-prompt',
    'assistant tool-call',
    'user tool-result',
    'assistant assistant-text',
  ]);
  assert.ok(textOf(r.messages[2]).includes('export function validate(code: string) {}'));
  assert.ok(textOf(r.messages[3]).includes('checkout.tsx'));
  assert.deepEqual(r.warnings, [`${name}:18: skipped 1 attachment line(s) of type todo with no text for the model (lines 18)`]);
  for (const context of [first.before, second.before, r.messages]) assertValid(context);
});

test('recorded usage: once per response (its last line), on the message it produced; the model of the last call', () => {
  const r = load('claude-code-two-compactions.jsonl');
  const t02 = r.compactions[0].before[1];
  // Two lines of response msg_t1 (output 10, then 80): one message, the final usage.
  assert.deepEqual(t02.usage, {
    inputTokens: 3,
    cacheReadTokens: 0,
    cacheCreationTokens: 12000,
    outputTokens: 80,
    model: 'claude-opus-4-6',
  });
  const all = [...r.compactions.flatMap((c) => c.before), ...r.messages];
  const unique = [...new Map(all.map((m) => [m.id, m])).values()];
  assert.equal(unique.filter((m) => m.usage).length, 6, 'one usage per recorded response (msg_t1 … msg_t6)');
  assert.ok(unique.every((m) => (m.role === 'assistant') === (m.usage !== undefined)));
  assert.equal(r.messages.at(-1)?.usage?.model, 'claude-sonnet-4-5');
  assert.equal(r.model, 'claude-sonnet-4-5');
});

test('usage: merged responses keep the last one; synthetic lines and bad fields record none', () => {
  const line = (fields: Record<string, unknown>): string =>
    JSON.stringify({ isSidechain: false, timestamp: '2026-01-10T10:00:00.000Z', ...fields });
  const usage = (input: number, out: number): Record<string, unknown> => ({
    input_tokens: input,
    cache_read_input_tokens: 100,
    cache_creation_input_tokens: 0,
    output_tokens: out,
  });
  const text = [
    line({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'hi' } }),
    // Two responses with no message.id: read as one message, which keeps the second (later) call's usage.
    line({
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      message: { role: 'assistant', model: 'claude-opus-4-6', content: [{ type: 'text', text: 'one' }], usage: usage(5, 1) },
    }),
    line({
      type: 'assistant',
      uuid: 'a2',
      parentUuid: 'a1',
      message: { role: 'assistant', model: 'claude-opus-4-6', content: [{ type: 'text', text: 'two' }], usage: usage(7, 2) },
    }),
    line({ type: 'user', uuid: 'u2', parentUuid: 'a2', message: { role: 'user', content: 'again' } }),
    line({
      type: 'assistant',
      uuid: 'a3',
      parentUuid: 'u2',
      message: {
        id: 'msg_s',
        role: 'assistant',
        model: '<synthetic>',
        content: [{ type: 'text', text: 'No response requested.' }],
        usage: usage(0, 0),
      },
    }),
    line({ type: 'user', uuid: 'u3', parentUuid: 'a3', message: { role: 'user', content: 'and again' } }),
    line({
      type: 'assistant',
      uuid: 'a4',
      parentUuid: 'u3',
      message: {
        id: 'msg_b',
        role: 'assistant',
        model: 'claude-haiku-4-5',
        content: [{ type: 'text', text: 'bad' }],
        usage: { ...usage(1, 1), cache_read_input_tokens: 'many' },
      },
    }),
  ].join('\n');
  const r = importSession(text, 'usage.jsonl');
  assert.deepEqual(
    r.messages.map((m) => [m.id, m.usage?.inputTokens, m.usage?.outputTokens]),
    [
      ['u1', undefined, undefined],
      ['a1', 7, 2],
      ['u2', undefined, undefined],
      ['a3', undefined, undefined],
      ['u3', undefined, undefined],
      ['a4', undefined, undefined],
    ],
  );
  assert.equal(r.model, 'claude-haiku-4-5', 'the last model call, even with unreadable usage');
  assert.deepEqual(r.warnings, [
    'usage.jsonl:7: message.usage.cache_read_input_tokens: expected a non-negative number, got "many"; usage not recorded',
  ]);
});

test('a redacted summary is kept with a warning; a compaction with no summary line gets a placeholder summary', () => {
  const name = 'claude-code-redacted-summary.jsonl';
  const r = load(name);
  assert.equal(r.compactions.length, 2);
  assert.ok(textOf(r.compactions[0].summary[0]).endsWith('REDACTED'));
  const placeholder = r.compactions[1].summary[0];
  assert.equal(placeholder.synthetic, 'summary');
  assert.equal(placeholder.id, 'claude_7_summary');
  assert.deepEqual(
    r.compactions[1].before.map((m) => m.id),
    ['r04', 'r05', 'r06'],
  );
  assert.deepEqual(kinds(r.messages), ['user summary', 'assistant assistant-text', 'user user-prompt']);
  assert.deepEqual(r.warnings, [
    `${name}:4: the compaction summary's text was redacted in the recording; kept as recorded`,
    `${name}:7: compaction without a recorded summary; a placeholder stands in for it`,
  ]);
  assertValid(r.messages);
});

test('a summary with no boundary line before it is a compaction of unknown trigger; at the top of a file it is only a summary', () => {
  const line = (fields: Record<string, unknown>): string =>
    JSON.stringify({ isSidechain: false, timestamp: '2026-01-10T10:00:00.000Z', ...fields });
  const summary = (uuid: string): string =>
    line({
      type: 'user',
      uuid,
      isCompactSummary: true,
      message: { role: 'user', content: 'This session is being continued… the summary.' },
    });
  const prompt = (uuid: string, text: string): string => line({ type: 'user', uuid, message: { role: 'user', content: text } });
  const answer = (uuid: string): string =>
    line({ type: 'assistant', uuid, message: { id: `msg_${uuid}`, role: 'assistant', content: [{ type: 'text', text: 'ok' }] } });
  const middle = importSession(
    [prompt('u1', 'first'), answer('a1'), summary('s1'), prompt('u2', 'second'), answer('a2')].join('\n'),
    'old.jsonl',
  );
  assert.deepEqual(
    middle.compactions.map((c) => [c.trigger, c.preTokens, c.line, c.before.length]),
    [['unknown', null, 3, 2]],
  );
  assert.deepEqual(
    middle.messages.map((m) => m.id),
    ['s1', 'u2', 'a2'],
  );
  const top = importSession([summary('s1'), prompt('u2', 'second'), answer('a2')].join('\n'), 'continued.jsonl');
  assert.deepEqual(top.compactions, []);
  assert.deepEqual(
    top.messages.map((m) => [m.id, m.synthetic]),
    [
      ['s1', 'summary'],
      ['u2', undefined],
      ['a2', undefined],
    ],
  );
});

test('unknown line types and unreadable attachments are reported, never silently skipped', () => {
  const text = [
    JSON.stringify({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'hi' } }),
    JSON.stringify({ type: 'hologram', uuid: 'h1' }),
    JSON.stringify({ type: 'hologram', uuid: 'h2' }),
    JSON.stringify({ type: 'attachment', uuid: 'at1', attachment: { type: 'deferred_tools_delta', names: ['x'] } }),
    JSON.stringify({
      type: 'attachment',
      uuid: 'at2',
      attachment: { type: 'hook_success', hookEvent: 'SessionStart', content: 'Loaded 3 rules.' },
    }),
    JSON.stringify({ type: 'assistant', uuid: 'a1', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'hello' }] } }),
  ].join('\n');
  const r = importSession(text, 'odd.jsonl');
  assert.deepEqual(kinds(r.messages), ['user user-prompt', 'user artefact:notification', 'assistant assistant-text']);
  assert.deepEqual(r.warnings, [
    'odd.jsonl:4: skipped 1 attachment line(s) of type deferred_tools_delta with no text for the model (lines 4)',
    'odd.jsonl:2: skipped 2 line(s) of unknown type hologram (lines 2, 3)',
  ]);
});

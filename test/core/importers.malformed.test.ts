// Format detection over every fixture, and the errors malformed files get (file, line, what is wrong).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectFormat, ImportError } from '../../src/core/importers';
import { claudeLine, fixture, importError, malformed } from './importersSupport';

// ---------------------------------------------------------------------------------------------------
// Detection

test('detectFormat recognises every fixture', () => {
  const expected: Record<string, string> = {
    'splitpoint-session.jsonl': 'splitpoint-jsonl',
    'splitpoint-transcript.jsonl': 'splitpoint-jsonl',
    'anthropic-request.json': 'anthropic-json',
    'anthropic-messages.json': 'anthropic-json',
    'claude-code-session.jsonl': 'claude-code-jsonl',
    'claude-code-rewind-compact.jsonl': 'claude-code-jsonl',
    'codex-rollout.jsonl': 'codex-rollout-jsonl',
    'codex-interrupted.jsonl': 'codex-rollout-jsonl',
    'codex-legacy.jsonl': 'codex-rollout-jsonl',
  };
  for (const [name, format] of Object.entries(expected)) {
    assert.equal(detectFormat(fixture('sessions', name), name), format, name);
    // Content decides, not the file name.
    assert.equal(detectFormat(fixture('sessions', name), 'upload.txt'), format, `${name} as upload.txt`);
  }
  assert.equal(detectFormat('{"messages":[{"role":"user","content":"hi"}]}', 'one-line.jsonl'), 'anthropic-json');
  assert.equal(detectFormat('{"id":"m1","role":"user","content":"hi"}', 'single.jsonl'), 'splitpoint-jsonl');
});

// ---------------------------------------------------------------------------------------------------
// Malformed input

test('malformed: invalid JSON on a line names the file and line', () => {
  const e = malformed('truncated-line.jsonl');
  assert.equal(e.file, 'truncated-line.jsonl');
  assert.equal(e.line, 4);
  assert.equal(e.field, undefined);
  assert.match(e.message, /^truncated-line\.jsonl:4: invalid JSON: /);
});

test('malformed: whole-file JSON syntax error reports the line of the error', () => {
  const e = malformed('bad-syntax.json');
  assert.equal(e.file, 'bad-syntax.json');
  assert.equal(e.line, 5);
  assert.equal(e.field, undefined);
  assert.match(e.message, /^bad-syntax\.json:5: invalid JSON: /);
});

test('malformed: system role in Anthropic JSON', () => {
  const e = malformed('wrong-role.json');
  assert.equal(e.file, 'wrong-role.json');
  assert.equal(e.line, undefined);
  assert.equal(e.field, 'messages[2].role');
  assert.equal(e.message, 'wrong-role.json: messages[2].role: expected "user" or "assistant", got "system"');
});

test('malformed: tool_use without id (Anthropic JSON, Claude Code)', () => {
  const json = malformed('missing-tool-use-id.json');
  assert.equal(json.line, undefined);
  assert.equal(json.field, 'messages[1].content[1].id');
  assert.equal(json.message, 'missing-tool-use-id.json: messages[1].content[1].id: missing: a tool_use block needs a non-empty id');

  const claude = malformed('claude-tool-use-no-id.jsonl');
  assert.equal(claude.file, 'claude-tool-use-no-id.jsonl');
  assert.equal(claude.line, 2);
  assert.equal(claude.field, 'message.content[0].id');
});

test('malformed: tool_result without tool_use_id in Splitpoint JSONL', () => {
  const e = malformed('missing-tool-use-id.jsonl');
  assert.equal(e.line, 3);
  assert.equal(e.field, 'content[1].tool_use_id');
  assert.equal(e.message, 'missing-tool-use-id.jsonl:3: content[1].tool_use_id: missing: a tool_result block needs the id of its tool_use');
});

test('malformed: content of the wrong type', () => {
  const e = malformed('wrong-content-type.jsonl');
  assert.equal(e.line, 2);
  assert.equal(e.field, 'content');
  assert.equal(e.message, 'wrong-content-type.jsonl:2: content: expected a string or an array of content blocks, got number 42');
});

test('malformed: empty file', () => {
  const e = malformed('empty.jsonl');
  assert.equal(e.file, 'empty.jsonl');
  assert.equal(e.line, undefined);
  assert.equal(e.field, undefined);
  assert.equal(e.message, 'empty.jsonl: the file is empty');
  assert.throws(
    () => detectFormat('', 'blank.json'),
    (err: unknown) => err instanceof ImportError && err.message === 'blank.json: the file is empty',
  );
});

test('malformed: unknown format lists the supported ones', () => {
  const e = malformed('unknown-format.jsonl');
  assert.equal(e.line, undefined);
  assert.equal(e.field, undefined);
  assert.match(e.message, /^unknown-format\.jsonl: unrecognised session format; supported formats: /);
  for (const name of ['Splitpoint JSONL', 'Anthropic Messages JSON', 'Claude Code session JSONL', 'Codex CLI rollout JSONL']) {
    assert.ok(e.message.includes(name), name);
  }
  assert.throws(() => detectFormat('{\n  "foo": 1\n}\n', 'config.json'), /config\.json: unrecognised session format/);
});

test('malformed: Codex function_call without call_id', () => {
  const e = malformed('codex-missing-call-id.jsonl');
  assert.equal(e.line, 3);
  assert.equal(e.field, 'payload.call_id');
  assert.equal(e.message, 'codex-missing-call-id.jsonl:3: payload.call_id: missing: a function_call item needs its call_id');
});

test('malformed: Splitpoint header not on the first line, or of an unknown version', () => {
  const late = malformed('late-header.jsonl');
  assert.equal(late.line, 2);
  assert.equal(late.field, 'type');
  const version = importError('{"type":"splitpoint.header","version":3}\n{"id":"a","role":"user","content":"x"}\n', 'v3.jsonl');
  assert.equal(version.line, 1);
  assert.equal(version.field, 'version');
});

test('malformed: a JSONL line that is not an object, a bad line after good ones, a role mismatch', () => {
  const notObject = importError('{"id":"a","role":"user","content":"x"}\n[1,2]\n', 'arr.jsonl');
  assert.equal(notObject.line, 2);
  assert.equal(notObject.message, 'arr.jsonl:2: expected a JSON object, got an array');

  const splitRole = importError('{"id":"a","role":"user","content":"x"}\n\n{"id":"b","role":"system","content":"y"}\n', 'roles.jsonl');
  assert.equal(splitRole.line, 3);
  assert.equal(splitRole.field, 'role');

  const claudeRole = importError(
    claudeLine({ type: 'user', uuid: 'u', parentUuid: null, message: { role: 'assistant', content: 'x' } }),
    'cc.jsonl',
  );
  assert.equal(claudeRole.line, 1);
  assert.equal(claudeRole.field, 'message.role');
});

// The validator tables (src/protocol/byType.ts) look a message's `type` up among their own keys only:
// a type that names something every object inherits (constructor, toString, __proto__) is no message,
// for the host's parsers and the webviews' alike; the same holds for the unions' value checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isMemberOf, parseByType, type ValidatorsByType } from '../../src/protocol';
import { parseChatToHost, parseInspectorToHost } from '../../src/protocol/validation';
import { parseHostToChat } from '../../webview/chat/hostMessages';
import { parseHostToInspector } from '../../webview/inspector/hostMessages';

const INHERITED = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];

type Ping = { type: 'ping' } | { type: 'echo'; text: string };
const PING: ValidatorsByType<Ping> = {
  ping: () => ({ type: 'ping' }),
  echo: (m) => (typeof m.text === 'string' ? { type: 'echo', text: m.text } : null),
};

test('parseByType answers the validator of the message’s type, and null for anything else', () => {
  const parse = parseByType(PING);
  assert.deepEqual(parse({ type: 'ping' }), { type: 'ping' });
  assert.deepEqual(parse({ type: 'echo', text: 'hi' }), { type: 'echo', text: 'hi' });
  assert.equal(parse({ type: 'echo', text: 1 }), null, 'the validator’s null');
  for (const raw of [null, undefined, 'ping', 1, [{ type: 'ping' }], {}, { type: 'pong' }, { type: 1 }, { type: new String('ping') }])
    assert.equal(parse(raw), null, JSON.stringify(raw));
  for (const type of INHERITED) assert.equal(parse({ type }), null, type);
});

test('no parser of the protocol, host or webview, takes an inherited property name for a message type', () => {
  const parsers = { parseChatToHost, parseInspectorToHost, parseHostToChat, parseHostToInspector };
  for (const [name, parse] of Object.entries(parsers)) {
    for (const type of INHERITED) assert.equal(parse({ type }), null, `${name}: type ${type}`);
  }
});

test('isMemberOf accepts exactly the union’s members', () => {
  const isLevel = isMemberOf<'info' | 'error'>({ info: true, error: true });
  assert.ok(isLevel('info') && isLevel('error'));
  for (const v of ['warn', '', 'INFO', 1, null, undefined, new String('info'), ...INHERITED]) assert.equal(isLevel(v), false, String(v));
});

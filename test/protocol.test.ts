// The webviews are untrusted: every message they send goes through parseChatToHost /
// parseInspectorToHost, which must accept exactly the protocol's shapes and nothing else. For every
// message type: a valid message is accepted (and returned as sent); an extra key, a missing or
// wrongly typed field, a string one character over its cap, an empty id, NaN or Infinity are rejected;
// so is anything that is not a plain object. Each cap is also checked at its limit, so an off-by-one
// in either direction is caught.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatToHost, InspectorToHost } from '../src/protocol';
import { parseChatToHost, parseInspectorToHost } from '../src/protocol/validation';

type Parser = (v: unknown) => unknown;
type Msg = Record<string, unknown>;

/** How a field is validated (the caps are the ones in src/protocol/index.ts). */
type FieldSpec =
  | { kind: 'string'; max: number; nonEmpty: boolean; optional: boolean; nonBlank?: boolean }
  | { kind: 'safeInt' }
  | { kind: 'params' }
  | { kind: 'compactionAt' }
  /** An optional flag that is either absent or exactly true. */
  | { kind: 'trueFlag' }
  /** One of these strings exactly. */
  | { kind: 'oneOf'; values: readonly string[] }
  /** A whole task list: [{ id?, text, status }] (core's parseTodoItems). */
  | { kind: 'todoItems' };

interface MessageSpec {
  /** A valid message with every field, optional ones included. */
  full: Msg;
  fields: Record<string, FieldSpec>;
}

const MAX_TEXT = 200_000;
const MAX_ID = 200;
const MAX_FOCUS = 2_000;
const MAX_PATH = 4_096;
const MAX_STRATEGY = 64;

const id = (optional = false): FieldSpec => ({ kind: 'string', max: MAX_ID, nonEmpty: true, optional });
const text = (max: number, optional: boolean): FieldSpec => ({ kind: 'string', max, nonEmpty: false, optional });

/** Every chat message type (the record's type makes a type without its spec a compile error). */
const CHAT: Record<ChatToHost['type'], MessageSpec> = {
  ready: { full: { type: 'ready' }, fields: {} },
  stop: { full: { type: 'stop' }, fields: {} },
  retry: { full: { type: 'retry' }, fields: {} },
  newChat: { full: { type: 'newChat' }, fields: {} },
  setApiKey: { full: { type: 'setApiKey' }, fields: {} },
  openInspector: { full: { type: 'openInspector' }, fields: {} },
  undoCompaction: { full: { type: 'undoCompaction' }, fields: {} },
  pickModel: { full: { type: 'pickModel' }, fields: {} },
  listFiles: { full: { type: 'listFiles' }, fields: {} },
  openDiff: { full: { type: 'openDiff', toolUseId: 'toolu_01' }, fields: { toolUseId: id() } },
  previewRestore: { full: { type: 'previewRestore', messageId: 'u_01' }, fields: { messageId: id() } },
  restoreFiles: { full: { type: 'restoreFiles', messageId: 'u_01' }, fields: { messageId: id() } },
  openRestoreDiff: {
    full: { type: 'openRestoreDiff', messageId: 'u_01', path: 'src/a.ts' },
    fields: { messageId: id(), path: { kind: 'string', max: MAX_PATH, nonEmpty: true, optional: false } },
  },
  send: {
    full: { type: 'send', text: 'Refactor the parser' },
    fields: { text: { kind: 'string', max: MAX_TEXT, nonEmpty: true, optional: false, nonBlank: true } },
  },
  approve: {
    full: { type: 'approve', toolUseId: 'toolu_01', alwaysAllow: true },
    fields: { toolUseId: id(), alwaysAllow: { kind: 'trueFlag' } },
  },
  reject: {
    full: { type: 'reject', toolUseId: 'toolu_01', reason: 'not that file' },
    fields: { toolUseId: id(), reason: text(MAX_FOCUS, true) },
  },
  compact: { full: { type: 'compact', focus: 'keep the API design' }, fields: { focus: text(MAX_FOCUS, true) } },
  openTranscript: {
    full: { type: 'openTranscript', path: '.transcripts/t1.jsonl' },
    fields: { path: { kind: 'string', max: MAX_PATH, nonEmpty: true, optional: false } },
  },
  pin: { full: { type: 'pin', id: 'u_01' }, fields: { id: id() } },
  setTodo: {
    full: { type: 'setTodo', items: [{ id: 'p1', text: 'Fix the parser', status: 'in_progress' }] },
    fields: { items: { kind: 'todoItems' } },
  },
  unpin: { full: { type: 'unpin', id: 'u_01' }, fields: { id: id() } },
  allowInstructions: { full: { type: 'allowInstructions' }, fields: {} },
  keepAsInstruction: { full: { type: 'keepAsInstruction', messageId: 'u_01' }, fields: { messageId: id() } },
  removeInstruction: { full: { type: 'removeInstruction', messageId: 'u_01' }, fields: { messageId: id() } },
  checkCompaction: { full: { type: 'checkCompaction', compactionId: 'cmp_01' }, fields: { compactionId: id() } },
  probeAction: {
    full: { type: 'probeAction', checkId: 'probes_cmp_01_1', probeId: 'p-artifact-1a2b', action: 'addToLedger' },
    fields: { checkId: id(), probeId: id(), action: { kind: 'oneOf', values: ['pin', 'addToLedger', 'undo'] } },
  },
};

/** Every inspector message type. */
const INSPECTOR: Record<InspectorToHost['type'], MessageSpec> = {
  ready: { full: { type: 'ready' }, fields: {} },
  undo: { full: { type: 'undo' }, fields: {} },
  inspectFile: { full: { type: 'inspectFile' }, fields: {} },
  showCurrent: { full: { type: 'showCurrent' }, fields: {} },
  replay: { full: { type: 'replay' }, fields: {} },
  // The live-session strip's intents (src/protocol/live.ts).
  liveReady: { full: { type: 'liveReady' }, fields: {} },
  continueInSplitpoint: { full: { type: 'continueInSplitpoint' }, fields: {} },
  restoreFiles: { full: { type: 'restoreFiles', id: 'u_01' }, fields: { id: id() } },
  checkCompaction: { full: { type: 'checkCompaction', compactionId: 'cmp_01' }, fields: { compactionId: id() } },
  preview: {
    full: { type: 'preview', requestId: 7, strategy: 'recent-turns', params: { turns: 2, perTurnFraction: 0.25 }, splitAtId: 'a_07' },
    fields: {
      requestId: { kind: 'safeInt' },
      strategy: { kind: 'string', max: MAX_STRATEGY, nonEmpty: true, optional: false },
      params: { kind: 'params' },
      splitAtId: id(true),
    },
  },
  apply: {
    full: { type: 'apply', strategy: 'sliding-window', params: { keep: 10 }, focus: 'the failing test', splitAtId: 'a_07' },
    fields: {
      strategy: { kind: 'string', max: MAX_STRATEGY, nonEmpty: true, optional: false },
      params: { kind: 'params' },
      focus: text(MAX_FOCUS, true),
      splitAtId: id(true),
    },
  },
  showMessage: { full: { type: 'showMessage', id: 'm-12' }, fields: { id: id() } },
  pin: { full: { type: 'pin', id: 'a_07' }, fields: { id: id() } },
  unpin: { full: { type: 'unpin', id: 'a_07' }, fields: { id: id() } },
  openTranscript: {
    full: { type: 'openTranscript', path: '/tmp/ws/.transcripts/t1.jsonl' },
    fields: { path: { kind: 'string', max: MAX_PATH, nonEmpty: true, optional: false } },
  },
  timeTravel: { full: { type: 'timeTravel', at: 3 }, fields: { at: { kind: 'compactionAt' } } },
  keepInstruction: {
    full: { type: 'keepInstruction', text: 'Never use default exports.' },
    fields: { text: { kind: 'string', max: 16_000, nonEmpty: true, optional: false, nonBlank: true } },
  },
};

/** Values of every JSON-ish type, and a few that are not JSON at all. */
const ANY_VALUES: Array<[string, unknown]> = [
  ['undefined', undefined],
  ['null', null],
  ['true', true],
  ['0', 0],
  ['1', 1],
  ['-1', -1],
  ['1.5', 1.5],
  ['NaN', NaN],
  ['Infinity', Infinity],
  ['-Infinity', -Infinity],
  ['"" ', ''],
  ['"7"', '7'],
  ['[]', []],
  ['["x"]', ['x']],
  ['{}', {}],
  ['{ length: 1 }', { length: 1 }],
  ['bigint', 10n],
  ['function', () => 'x'],
  ['symbol', Symbol('x')],
  ['Date', new Date(0)],
];

/** The values of ANY_VALUES a field must reject (the rest are valid for it and not hostile). */
function wrongValues(spec: FieldSpec): Array<[string, unknown]> {
  return ANY_VALUES.filter(([, v]) => {
    switch (spec.kind) {
      case 'string':
        // '' is valid only for a string field that may be empty; undefined only for an optional one.
        if (v === undefined) return !spec.optional;
        if (v === '') return spec.nonEmpty;
        return typeof v !== 'string';
      case 'safeInt':
        return !Number.isSafeInteger(v);
      case 'params':
        // Any non-array object is a map (an empty one too); its entries are checked in edgeValues.
        return !(typeof v === 'object' && v !== null && !Array.isArray(v));
      case 'compactionAt':
        return !(v === null || v === 1);
      case 'trueFlag':
        return !(v === undefined || v === true);
      case 'oneOf':
        return !spec.values.includes(v as string);
      case 'todoItems':
        // Only an array of items: an empty array is an empty list.
        return !(Array.isArray(v) && v.length === 0);
    }
  });
}

/** A task list's hostile variants (caps, statuses, ids, extra keys) and the ones at its caps. */
function todoItemsEdges(): { rejected: Array<[string, unknown]>; accepted: Array<[string, unknown]> } {
  const item = (i: number) => ({ id: `i${i}`, text: `step ${i}`, status: 'pending' });
  return {
    rejected: [
      ['101 items (cap 100)', Array.from({ length: 101 }, (_, i) => item(i))],
      ['an empty text', [{ id: 'a', text: '', status: 'done' }]],
      ['a blank text', [{ id: 'a', text: ' \n ', status: 'done' }]],
      ['1001 chars of text (cap 1000)', [{ id: 'a', text: 'x'.repeat(1001), status: 'done' }]],
      ['an unknown status', [{ id: 'a', text: 'x', status: 'finished' }]],
      ['a missing status', [{ id: 'a', text: 'x' }]],
      ['an extra key', [{ id: 'a', text: 'x', status: 'done', owner: 'me' }]],
      ['a duplicate id', [item(1), item(1)]],
      ['an empty id', [{ id: '', text: 'x', status: 'done' }]],
      ['a 65-char id (cap 64)', [{ id: 'k'.repeat(65), text: 'x', status: 'done' }]],
      ['an item that is a string', ['x']],
      ['an object', { 0: item(0) }],
    ],
    accepted: [
      ['100 items (at the cap)', Array.from({ length: 100 }, (_, i) => item(i))],
      ['1000 chars of text (at the cap)', [{ id: 'a', text: 'x'.repeat(1000), status: 'done' }]],
      ['every status', [item(1), { ...item(2), status: 'in_progress' }, { ...item(3), status: 'done' }]],
    ],
  };
}

/** Hostile values specific to a field beyond its type: caps, ranges, bad params maps. */
function edgeValues(spec: FieldSpec): { rejected: Array<[string, unknown]>; accepted: Array<[string, unknown]> } {
  switch (spec.kind) {
    case 'string': {
      const rejected: Array<[string, unknown]> = [
        [`${spec.max + 1} chars (cap ${spec.max})`, 'x'.repeat(spec.max + 1)],
        [`${spec.max * 4} chars (cap ${spec.max})`, 'x'.repeat(spec.max * 4)],
        // A cap is on the string's length: a String object or an array of chars is not a string.
        ['new String("x")', new String('x')],
      ];
      if (spec.nonBlank) rejected.push(['whitespace only', ' \n\t ']);
      const accepted: Array<[string, unknown]> = [
        [`${spec.max} chars (at the cap)`, 'x'.repeat(spec.max)],
        ['one char', 'x'],
      ];
      if (!spec.nonEmpty) accepted.push(['""', '']);
      if (spec.optional) accepted.push(['absent', undefined]);
      return { rejected, accepted };
    }
    case 'safeInt':
      return {
        rejected: [
          ['2^53', 2 ** 53],
          ['-2^53', -(2 ** 53)],
          ['1e300', 1e300],
          ['0.1', 0.1],
          ['"1"', '1'],
        ],
        accepted: [
          ['0', 0],
          ['2^53 - 1', 2 ** 53 - 1],
        ],
      };
    case 'params': {
      const sixteen = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`p${i}`, i]));
      return {
        rejected: [
          ['17 entries', { ...sixteen, p16: 16 }],
          ['a 65-char key', { ['k'.repeat(65)]: 1 }],
          ['a NaN value', { turns: NaN }],
          ['an Infinity value', { turns: Infinity }],
          ['a -Infinity value', { turns: -Infinity }],
          ['a string value', { turns: '2' }],
          ['a null value', { turns: null }],
          ['an undefined value', { turns: undefined }],
          ['a boolean value', { turns: true }],
          ['an object value', { turns: { valueOf: () => 2 } }],
          ['an array value', { turns: [2] }],
          ['a bigint value', { turns: 2n }],
          ['one bad value among good ones', { a: 1, b: 2, c: NaN }],
          ['an array', [1, 2]],
        ],
        accepted: [
          ['16 entries', sixteen],
          ['a 64-char key', { ['k'.repeat(64)]: 1 }],
          ['no entries', {}],
          ['negative and fractional values', { a: -3, b: 0.5, c: Number.MAX_VALUE }],
        ],
      };
    }
    case 'todoItems':
      return todoItemsEdges();
    case 'oneOf':
      return {
        rejected: [
          ['another case', spec.values[0]!.toUpperCase()],
          ['with a space', `${spec.values[0]} `],
          ['an inherited name', 'toString'],
          ['__proto__', '__proto__'],
          ['absent', undefined],
        ],
        accepted: spec.values.map((v) => [JSON.stringify(v), v] as [string, unknown]),
      };
    case 'trueFlag':
      return {
        rejected: [
          ['false', false],
          ['"true"', 'true'],
        ],
        accepted: [
          ['true', true],
          ['absent', undefined],
        ],
      };
    case 'compactionAt':
      return {
        rejected: [
          ['0', 0],
          ['-1', -1],
          ['10001', 10_001],
          ['2.5', 2.5],
          ['"2"', '2'],
          ['absent', undefined],
        ],
        accepted: [
          ['null (the current context)', null],
          ['1', 1],
          ['10000', 10_000],
        ],
      };
  }
}

/** Everything that is not an object message at all. */
const NOT_OBJECTS: Array<[string, unknown]> = [
  ['undefined', undefined],
  ['null', null],
  ['a string', 'ready'],
  ['a JSON string', '{"type":"ready"}'],
  ['a number', 1],
  ['NaN', NaN],
  ['true', true],
  ['an array', []],
  ['an array holding a message', [{ type: 'ready' }]],
  ['a function', () => ({ type: 'ready' })],
  ['a symbol', Symbol('ready')],
  ['a bigint', 1n],
];

const without = (m: Msg, key: string): Msg => Object.fromEntries(Object.entries(m).filter(([k]) => k !== key));

/** Runs every hostile case of one message type; returns how many it tried. */
function checkMessage(parse: Parser, name: string, spec: MessageSpec): number {
  let hostile = 0;
  const rejects = (what: string, v: unknown) => {
    hostile++;
    assert.equal(parse(v), null, `${name}: ${what} must be rejected`);
  };
  const accepts = (what: string, v: Msg) => {
    const expected = Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined));
    assert.deepEqual(parse(v), expected, `${name}: ${what} must be accepted as sent`);
  };

  // Valid: every field; only the required ones.
  accepts('a valid message', spec.full);
  const required = Object.entries(spec.fields)
    .filter(([, f]) => !(f.kind === 'string' && f.optional))
    .map(([k]) => k);
  accepts('the required fields only', Object.fromEntries(Object.entries(spec.full).filter(([k]) => k === 'type' || required.includes(k))));

  // Extra keys, with and without the optional fields present.
  for (const extra of ['extra', 'command', 'toString', 'constructor', 'Type', 'id', 'text', 'path']) {
    if (extra in spec.fields) continue;
    rejects(`an extra key "${extra}"`, { ...spec.full, [extra]: 'x' });
    rejects(`an extra key "${extra}" (undefined)`, { ...spec.full, [extra]: undefined });
  }
  rejects('an own "__proto__" key', JSON.parse(JSON.stringify({ ...spec.full, x: 1 }).replace('"x":1', '"__proto__":{"isAdmin":true}')));

  // The type tag.
  rejects('type in another case', { ...spec.full, type: name.toUpperCase() });
  rejects('type with a trailing space', { ...spec.full, type: `${name} ` });
  rejects('type as a String object', { ...spec.full, type: new String(name) });
  rejects('type in an array', { ...spec.full, type: [name] });
  rejects('no type', without(spec.full, 'type'));

  for (const [field, f] of Object.entries(spec.fields)) {
    if (!(field in spec.full)) continue;
    if (!((f.kind === 'string' && f.optional) || f.kind === 'trueFlag')) rejects(`without ${field}`, without(spec.full, field));
    for (const [what, v] of wrongValues(f)) rejects(`${field} = ${what}`, { ...spec.full, [field]: v });
    const edges = edgeValues(f);
    for (const [what, v] of edges.rejected) rejects(`${field} = ${what}`, { ...spec.full, [field]: v });
    for (const [what, v] of edges.accepted) accepts(`${field} = ${what}`, { ...spec.full, [field]: v });
  }
  return hostile;
}

function checkProtocol(parse: Parser, specs: Record<string, MessageSpec>, label: string, log: (s: string) => void): number {
  let hostile = 0;
  for (const [what, v] of NOT_OBJECTS) {
    hostile++;
    assert.equal(parse(v), null, `${label}: ${what} must be rejected`);
  }
  for (const [what, v] of [
    ['an unknown type', { type: 'runCommand', command: 'rm -rf /' }],
    ['an empty type', { type: '' }],
    ['a numeric type', { type: 1 }],
    ['a null type', { type: null }],
    ['an object type', { type: { toString: () => 'ready' } }],
    ['an inherited prototype method as type', { type: 'hasOwnProperty' }],
    ['the prototype’s constructor as type', { type: 'constructor' }],
    ['"__proto__" as type', { type: '__proto__' }],
    ['"toString" as type', { type: 'toString' }],
    ['"valueOf" as type', { type: 'valueOf' }],
    ['an empty object', {}],
  ] as Array<[string, unknown]>) {
    hostile++;
    assert.equal(parse(v), null, `${label}: ${what} must be rejected`);
  }
  for (const [name, spec] of Object.entries(specs)) {
    const n = checkMessage(parse, name, spec);
    log(`${label} ${name}: ${n} hostile inputs rejected`);
    hostile += n;
  }
  return hostile;
}

let total = 0;

test('parseChatToHost accepts exactly each chat message shape and rejects every hostile variant', (t) => {
  const n = checkProtocol(parseChatToHost, CHAT, 'chat', (s) => t.diagnostic(s));
  t.diagnostic(`chat: ${n} hostile inputs`);
  total += n;
  assert.ok(n > 300, `${n}`);
});

test('parseInspectorToHost accepts exactly each inspector message shape and rejects every hostile variant', (t) => {
  const n = checkProtocol(parseInspectorToHost, INSPECTOR, 'inspector', (s) => t.diagnostic(s));
  t.diagnostic(`inspector: ${n} hostile inputs`);
  total += n;
  assert.ok(n > 300, `${n}`);
});

test('the two parsers do not accept each other’s messages', (t) => {
  for (const [name, spec] of Object.entries(INSPECTOR)) {
    if (name in CHAT) continue;
    total++;
    assert.equal(parseChatToHost(spec.full), null, `chat must reject the inspector's ${name}`);
  }
  for (const [name, spec] of Object.entries(CHAT)) {
    if (name in INSPECTOR) continue;
    total++;
    assert.equal(parseInspectorToHost(spec.full), null, `inspector must reject the chat's ${name}`);
  }
  t.diagnostic(`hostile inputs tried in this file: ${total}`);
});

test('a parsed message is a new object: later changes to what the webview sent do not reach it', () => {
  const sent = { type: 'send', text: 'hello' };
  const parsed = parseChatToHost(sent);
  assert.notEqual(parsed, sent);
  sent.text = 'changed';
  assert.deepEqual(parsed, { type: 'send', text: 'hello' });
});

// A 2x1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAEUlEQVR42mP8z8DwnwEIGBkBAAAA//8DAAb/Af8AAAAASUVORK5CYII=';

test('send validation: mentions and images must be dense arrays of exactly the protocol shape (no holes, no extra keys), copied', () => {
  const sparse: unknown[] = [];
  sparse[1] = 'src/a.ts'; // [ <hole>, 'src/a.ts' ]
  assert.equal(parseChatToHost({ type: 'send', text: 'hi', mentions: sparse }), null, 'a hole');
  assert.equal(parseChatToHost({ type: 'send', text: 'hi', mentions: Object.assign(['a'], { extra: 'x' }) }), null, 'an extra key');
  const holeAndKey: unknown[] = Object.assign([], { x: 'a' });
  holeAndKey.length = 1;
  assert.equal(parseChatToHost({ type: 'send', text: 'hi', mentions: holeAndKey }), null, 'a hole and a key, same count');
  const img = { mediaType: 'image/png', data: PNG };
  const holes: unknown[] = [img];
  holes.length = 3;
  assert.equal(parseChatToHost({ type: 'send', text: 'hi', images: holes }), null, 'images with holes');
  assert.equal(parseChatToHost({ type: 'send', text: 'hi', images: Object.assign([img], { 1.5: img }) }), null);
  const mentions = ['src/a.ts'];
  const images = [{ ...img }];
  const parsed = parseChatToHost({ type: 'send', text: 'hi', mentions, images }) as { mentions: string[]; images: object[] };
  assert.deepEqual(parsed, { type: 'send', text: 'hi', mentions: ['src/a.ts'], images: [img] });
  assert.notEqual(parsed.mentions, mentions, 'a new array');
  assert.notEqual(parsed.images[0], images[0], 'a new object');
});

// The TTL split of recorded cache writes (RecordedUsage.cacheWrite1hTokens): read from Claude Code's
// `usage.cache_creation` (every write in the real recordings is a 1-hour write), kept through a
// Splitpoint session round trip, and a malformed split reported with file, line and field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Message } from '../../../src/core/conversation/conversation';
import { importSession, serializeImportResult } from '../../../src/core/importers';

const REAL = 'test/fixtures/real-sessions';

const allMessages = (r: { messages: Message[]; compactions: Array<{ before: Message[] }> }) => [
  ...r.compactions.flatMap((c) => c.before),
  ...r.messages,
];

test('Claude Code: each recorded usage carries its 1-hour writes as the raw line records them', () => {
  for (const name of ['claude-code-cipher-box-a', 'claude-code-cipher-box-b', 'claude-code-cipher-box-c']) {
    const file = `${REAL}/${name}.jsonl`;
    const text = readFileSync(file, 'utf8');
    const raw = new Map<string, { oneHour: number; creation: number }>();
    for (const line of text.split('\n')) {
      if (!line.includes('"ephemeral_1h_input_tokens"')) continue;
      const j = JSON.parse(line);
      const u = j.type === 'assistant' ? j.message?.usage : undefined;
      if (!u?.cache_creation) continue;
      raw.set(j.uuid, { oneHour: u.cache_creation.ephemeral_1h_input_tokens, creation: u.cache_creation_input_tokens });
    }
    const result = importSession(text, file);
    const withUsage = allMessages(result).filter((m) => m.usage && raw.has(m.id));
    assert.ok(withUsage.length > 50, `${name}: ${withUsage.length} recorded calls with a split`);
    for (const m of withUsage) assert.equal(m.usage!.cacheWrite1hTokens, raw.get(m.id)!.oneHour, `${name} ${m.id}`);
    // Every cache write in these recordings is a 1-hour write.
    assert.ok([...raw.values()].every((r) => r.oneHour === r.creation));
    assert.ok(!result.warnings.some((w) => w.includes('cache_creation')), result.warnings.join('\n'));
  }
});

const line = (fields: Record<string, unknown>): string =>
  JSON.stringify({ isSidechain: false, timestamp: '2026-01-10T10:00:00.000Z', ...fields });
function session(split: unknown): string {
  const usage = { input_tokens: 3, cache_read_input_tokens: 100, cache_creation_input_tokens: 50, output_tokens: 2, cache_creation: split };
  return [
    line({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'hi' } }),
    line({
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      message: { id: 'm1', role: 'assistant', model: 'claude-opus-4-6', content: [{ type: 'text', text: 'hello' }], usage },
    }),
  ].join('\n');
}

test('Claude Code: a split that is not two whole counts adding up to the writes is reported and left unknown; the usage is kept', () => {
  const ok = importSession(session({ ephemeral_1h_input_tokens: 30, ephemeral_5m_input_tokens: 20 }), 's.jsonl');
  assert.equal(ok.messages[1].usage?.cacheWrite1hTokens, 30);
  assert.deepEqual(ok.warnings, []);
  const absent = importSession(session(undefined), 's.jsonl');
  assert.equal(absent.messages[1].usage?.cacheCreationTokens, 50);
  assert.equal('cacheWrite1hTokens' in absent.messages[1].usage!, false, 'no split recorded: unknown');
  const bad: Array<[unknown, RegExp]> = [
    [
      { ephemeral_1h_input_tokens: -1, ephemeral_5m_input_tokens: 51 },
      /^s\.jsonl:2: message\.usage\.cache_creation\.ephemeral_1h_input_tokens: expected a whole number/,
    ],
    [{ ephemeral_1h_input_tokens: '50' }, /ephemeral_1h_input_tokens: expected a whole number from 0 to 1000000000, got "50"/],
    [{ ephemeral_1h_input_tokens: 1.5, ephemeral_5m_input_tokens: 48.5 }, /ephemeral_1h_input_tokens: expected a whole number/],
    [
      { ephemeral_1h_input_tokens: 40, ephemeral_5m_input_tokens: 20 },
      /ephemeral_1h_input_tokens 40 \+ ephemeral_5m_input_tokens 20 differ from cache_creation_input_tokens 50/,
    ],
    ['lots', /^s\.jsonl:2: message\.usage\.cache_creation: expected an object/],
  ];
  for (const [split, message] of bad) {
    const r = importSession(session(split), 's.jsonl');
    assert.equal(r.messages[1].usage?.cacheCreationTokens, 50, JSON.stringify(split));
    assert.equal(r.messages[1].usage?.cacheWrite1hTokens, undefined, JSON.stringify(split));
    assert.equal(r.warnings.length, 1, JSON.stringify(split));
    assert.match(r.warnings[0], message);
    assert.match(r.warnings[0], /cache TTL split not recorded$/);
  }
});

test('Splitpoint sessions keep the split through a round trip and reject one that is not a count up to the writes', () => {
  const file = `${REAL}/claude-code-cipher-box-a.jsonl`;
  const imported = importSession(readFileSync(file, 'utf8'), file);
  const text = serializeImportResult(imported);
  const again = importSession(text, 'again.jsonl');
  const splits = (r: typeof imported) => allMessages(r).map((m) => m.usage?.cacheWrite1hTokens);
  assert.deepEqual(splits(again), splits(imported));
  assert.ok(splits(again).some((n) => n !== undefined && n > 0));
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.includes('"cacheWrite1hTokens"'));
  for (const value of ['-1', '"5"', '99999999']) {
    const broken = [...lines];
    broken[i] = broken[i].replace(/"cacheWrite1hTokens":\d+/, `"cacheWrite1hTokens":${value}`);
    assert.throws(
      () => importSession(broken.join('\n'), 'broken.jsonl'),
      (e: Error) =>
        e.message.startsWith(`broken.jsonl:${i + 1}: usage.cacheWrite1hTokens: expected a non-negative number up to cacheCreationTokens`),
      value,
    );
  }
});

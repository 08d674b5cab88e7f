// The live-session strip's messages (src/protocol/live.ts): the host checks the strip's intents
// through the inspector's table (exactly `{ type }`), and the strip checks the host's `live` message
// field by field (a LiveView, or null), so a malformed one is ignored, never rendered half.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isLiveView, parseHostToLive, parseLiveToHost, type LiveView } from '../../src/protocol';
import { parseInspectorToHost } from '../../src/protocol/validation';

function view(): LiveView {
  return {
    file: '/home/u/.claude/projects/-w/s.jsonl',
    status: {
      agent: 'claude-code',
      model: 'claude-opus-4-5',
      contextTokens: 124_000,
      contextWindow: 200_000,
      windowSource: 'model',
      compactAt: 167_000,
      compactAtSource: 'window - 20,000 output - 13,000 buffer',
      callsToCompaction: 12,
      growthPerCall: 3_500,
      costSoFar: 4.25,
      priceSource: 'table',
      calls: 80,
      compactions: 1,
      lastCompaction: {
        index: 1,
        trigger: 'auto',
        preTokens: 160_000,
        at: 1_760_000_000_000,
        archivedMessages: 300,
        archivedTokens: 150_000,
      },
      agentConfig: 'claude-code-like',
    },
    following: true,
    gone: false,
    updatedAt: 1_760_000_001_000,
    agentPreview: {
      config: 'claude-code-like',
      label: "Claude Code's next compaction",
      strategy: 'recursive-summarization',
      params: { maxEventsToKeep: 1, overlapSize: 0 },
    },
    canContinue: true,
  };
}

test('the strip accepts a live view, null, and the view without the optional figures', () => {
  const v = view();
  assert.deepEqual(parseHostToLive({ type: 'live', live: v }), { type: 'live', live: v });
  assert.deepEqual(parseHostToLive({ type: 'live', live: null }), { type: 'live', live: null });
  const bare = view();
  bare.status = {
    ...bare.status,
    agent: 'codex',
    model: null,
    contextTokens: null,
    compactAt: null,
    callsToCompaction: null,
    growthPerCall: null,
    costSoFar: null,
    priceSource: null,
    lastCompaction: null,
    agentConfig: null,
  };
  bare.agentPreview = null;
  bare.updatedAt = null;
  assert.ok(isLiveView(bare));
});

test('the strip refuses a live view with a field of the wrong type, and any other message', () => {
  const broken: Array<[string, (v: Record<string, unknown>) => void]> = [
    ['file missing', (v) => delete v.file],
    ['following a string', (v) => (v.following = 'yes')],
    ['gone missing', (v) => delete v.gone],
    ['updatedAt NaN', (v) => (v.updatedAt = Number.NaN)],
    ['status null', (v) => (v.status = null)],
    ['agent unknown to the union', (v) => ((v.status as Record<string, unknown>).agent = 'cursor')],
    ['contextWindow null', (v) => ((v.status as Record<string, unknown>).contextWindow = null)],
    ['calls a string', (v) => ((v.status as Record<string, unknown>).calls = '80')],
    [
      'lastCompaction without its index',
      (v) => delete ((v.status as Record<string, unknown>).lastCompaction as Record<string, unknown>).index,
    ],
    ['preview params not numbers', (v) => ((v.agentPreview as Record<string, unknown>).params = { turns: '3' })],
    ['preview without a strategy', (v) => ((v.agentPreview as Record<string, unknown>).strategy = '')],
    ['canContinue missing', (v) => delete v.canContinue],
  ];
  for (const [what, breakIt] of broken) {
    const v = structuredClone(view()) as unknown as Record<string, unknown>;
    breakIt(v);
    assert.equal(parseHostToLive({ type: 'live', live: v }), null, what);
  }
  for (const raw of [{ type: 'live' }, { type: 'session', session: {} }, { type: 'notice', level: 'info', message: 'x' }, null, 'live'])
    assert.equal(parseHostToLive(raw), null, JSON.stringify(raw));
});

test('the host takes the strip intents through the inspector table, exactly { type }', () => {
  for (const type of ['liveReady', 'continueInSplitpoint'] as const) {
    assert.deepEqual(parseInspectorToHost({ type }), { type });
    assert.deepEqual(parseLiveToHost({ type }), { type });
    // The file is the host's: a webview cannot name another one.
    assert.equal(parseInspectorToHost({ type, file: '/etc/passwd' }), null, `${type} with a file`);
  }
  assert.equal(parseLiveToHost({ type: 'live', live: null }), null, 'a host message is no intent');
});

// The inspector webview's pure modules, without a browser: the timeline's geometry with split
// dividers (layout.ts), parameter checks against the host's bounds (params.ts), and the state reducer
// that takes only the latest plan and tells an appended history from a rewritten one (state.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message } from '../../src/core/conversation/conversation';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { planWith } from '../../src/core/strategies';
import { planMicroCompact } from '../../src/core/strategies/microCompact';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { buildInspectorSession } from '../../src/inspector/inspectorModel';
import { planToView } from '../../src/inspector/planViews';
import { gapTop, makeLayout, rowAt, rowTop, totalHeight, visibleRange } from '../../webview/inspector/layout';
import { checkParam } from '../../webview/inspector/params';
import { initialState, reduce, sessionChange, type InspectorState } from '../../webview/inspector/state';
import { EXAMPLE } from './inspector-support';

test('timeline geometry: split dividers sit between rows and shift the rows below them', () => {
  const layout = makeLayout(10, [
    { index: 3, kind: 'preview' },
    { index: 3, kind: 'current' },
    { index: 11, kind: 'preview' },
  ]);
  assert.deepEqual(layout.gaps, [
    { index: 3, kind: 'current' },
    { index: 3, kind: 'preview' },
  ]);
  assert.equal(rowTop(layout, 2), 48);
  assert.equal(gapTop(layout, 0), 72);
  assert.equal(gapTop(layout, 1), 96);
  assert.equal(rowTop(layout, 3), 120);
  assert.equal(totalHeight(layout), 10 * 24 + 2 * 24);
  assert.equal(rowAt(layout, 100), 2, 'a point on a divider belongs to the row above');
  assert.equal(rowAt(layout, 120), 3);
  assert.equal(rowAt(layout, 10_000), 9);
  assert.deepEqual(visibleRange(layout, 120, 48, 1), [2, 6]);
  assert.deepEqual(visibleRange(makeLayout(0, []), 0, 100, 5), [0, 0]);
});

test('parameter checks follow the bounds the host sends', () => {
  const p = { name: 'n', description: '', value: 3, min: 1, max: 10, integer: true };
  assert.deepEqual(checkParam(p, ' 4 '), { value: 4 });
  assert.deepEqual(checkParam(p, '0'), { error: 'Must be at least 1.' });
  assert.deepEqual(checkParam(p, '11'), { error: 'Must be at most 10.' });
  assert.deepEqual(checkParam(p, '1.5'), { error: 'Must be a whole number.' });
  assert.deepEqual(checkParam(p, 'abc'), { error: 'Enter a number.' });
  assert.deepEqual(checkParam({ ...p, integer: false, max: 0.99, min: 0.01 }, '0.5'), { value: 0.5 });
});

test('state: only the latest answer is taken; appends keep a preview, rewrites and other sessions drop it', () => {
  const c: PlanContext = { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()) };
  const view = (messages: Message[], sessionId = 's') =>
    buildInspectorSession({
      source: 'Current session',
      readOnly: false,
      sessionId,
      title: 't',
      messages,
      effective: messages,
      compactions: [],
      ctx: c,
      overhead: { system: 0, tools: 0 },
      autoCompactThreshold: null,
      canUndo: false,
      tailStartId: null,
    });
  const plan = (requestId: number, strategy: string, overrides: Record<string, number>) =>
    planToView(planWith(strategy, EXAMPLE.slice(0, 50), overrides, c), requestId, 1);
  const s0 = view(EXAMPLE.slice(0, 50));
  let st: InspectorState = reduce(initialState, { type: 'host', message: { type: 'session', session: s0 } });
  assert.equal(st.sessionChange, 'new');
  st = reduce(st, { type: 'previewRequested', requestId: 1, strategy: 'sliding-window' });
  st = reduce(st, { type: 'previewRequested', requestId: 2, strategy: 'turn-window' });
  assert.equal(
    reduce(st, { type: 'host', message: { type: 'plan', plan: plan(1, 'sliding-window', { maxEvents: 5 }) } }),
    st,
    'stale answer ignored',
  );
  st = reduce(st, { type: 'host', message: { type: 'plan', plan: plan(2, 'turn-window', { maxTurns: 2 }) } });
  assert.equal(st.plan?.requestId, 2);
  const cleared = reduce(st, { type: 'clearPreview' });
  assert.equal(
    reduce(cleared, { type: 'host', message: { type: 'plan', plan: plan(2, 'turn-window', { maxTurns: 2 }) } }).plan,
    null,
    'no answer taken after Clear preview',
  );

  const appended = reduce(st, { type: 'host', message: { type: 'session', session: view(EXAMPLE) } });
  assert.equal(appended.sessionChange, 'append');
  assert.equal(appended.plan?.requestId, 2, 'the preview stays while a fresh one is computed');
  assert.equal(appended.planStale, true);
  assert.equal(sessionChange(s0, view(EXAMPLE.slice(0, 50))), 'same');
  assert.equal(sessionChange(s0, view(EXAMPLE.slice(0, 50), 'other')), 'new');
  const micro = (ms: Message[]) => planMicroCompact(ms, { keepRecent: 3, minChars: 100 }, c).output;
  const viewMicro = (ms: Message[]) =>
    buildInspectorSession({
      source: 'Current session',
      readOnly: false,
      sessionId: 's',
      title: 't',
      messages: ms,
      effective: micro(ms),
      compactions: [],
      ctx: c,
      overhead: { system: 0, tools: 0 },
      autoCompactThreshold: null,
      canUndo: false,
      tailStartId: null,
    });
  assert.equal(
    sessionChange(viewMicro(EXAMPLE.slice(0, 50)), viewMicro(EXAMPLE)),
    'append',
    'more micro-compaction as the history grows is still an append',
  );
  assert.equal(sessionChange(s0, view(EXAMPLE.slice(1, 50))), 'rewrite');
  const emptied = EXAMPLE.slice(0, 50).map((m): Message =>
    m.role === 'user' && typeof m.content !== 'string' ? { ...m, content: m.content.map((b) => ({ ...b, content: '' })) } : m,
  );
  assert.equal(sessionChange(s0, view(emptied)), 'rewrite', 'same ids, different contents');
  const rewritten = reduce(st, { type: 'host', message: { type: 'session', session: view(EXAMPLE.slice(1, 50)) } });
  assert.equal(rewritten.plan, null);
  assert.equal(rewritten.previewStrategy, null);
});

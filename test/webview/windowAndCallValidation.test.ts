// The inspector webview's validation of what the host sends about a recording's window and its calls'
// cost as billed: the window source and its note, each call's 1-hour writes and price source. Built by
// the real host code from the 1M-window fixture (a Claude Code recording whose writes are all 1-hour),
// accepted as sent; each field tampered with is rejected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { importSession } from '../../src/core/importers';
import { sessionWindow } from '../../src/core/importers/window';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { buildInspectorSession } from '../../src/inspector/inspectorModel';
import type { HostToInspector } from '../../src/protocol';
import { parseHostToInspector } from '../../webview/inspector/hostMessages';

const FILE = 'test/fixtures/window-1m/claude-code-1m-window.jsonl';

function message(): HostToInspector & { type: 'session' } {
  const result = importSession(readFileSync(FILE, 'utf8'), FILE);
  const w = sessionWindow(result);
  const session = buildInspectorSession({
    source: FILE,
    readOnly: true,
    sessionId: 'rec',
    title: 'rec',
    messages: result.messages,
    effective: result.messages,
    compactions: [],
    ctx: { ...DEFAULT_PLAN_CONTEXT, contextWindow: w.window, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()) },
    overhead: { system: 0, tools: 0 },
    overheadSource: 'unknown',
    windowSource: 'inferred-from-usage',
    ...(w.note ? { windowNote: w.note } : {}),
    autoCompactThreshold: null,
    canUndo: false,
    tailStartId: null,
  });
  return { type: 'session', session };
}

test('a recording’s window source and note, and each call’s 1-hour writes and price source, pass validation as the host builds them', () => {
  const m = message();
  assert.equal(m.session.usage.windowSource, 'inferred-from-usage');
  assert.match(m.session.usage.windowNote!, /303,594/);
  const calls = m.session.rows.filter((r) => r.usage);
  assert.ok(calls.length > 0);
  for (const r of calls) {
    assert.equal(r.usage!.cacheWrite1hTokens, r.usage!.cacheCreationTokens, 'every write of this recording is a 1-hour write');
    assert.equal(r.usage!.priceSource, 'table');
  }
  assert.notEqual(parseHostToInspector(JSON.parse(JSON.stringify(m))), null);
});

test('tampered window or call fields are rejected', () => {
  const tamper = (edit: (m: ReturnType<typeof message>) => void) => {
    const m = JSON.parse(JSON.stringify(message()));
    edit(m);
    return parseHostToInspector(m);
  };
  const firstCall = (m: ReturnType<typeof message>) => m.session.rows.find((r) => r.usage && r.usage.cacheCreationTokens > 0)!.usage!;
  const cases: Array<[string, (m: ReturnType<typeof message>) => void]> = [
    ['an unknown window source', (m) => ((m.session.usage as { windowSource: unknown }).windowSource = 'guessed')],
    ['a window note that is not text', (m) => ((m.session.usage as { windowNote: unknown }).windowNote = 303_594)],
    ['1-hour writes above the writes', (m) => (firstCall(m).cacheWrite1hTokens = firstCall(m).cacheCreationTokens + 1)],
    ['negative 1-hour writes', (m) => (firstCall(m).cacheWrite1hTokens = -1)],
    ['an unknown price source', (m) => ((firstCall(m) as { priceSource: unknown }).priceSource = 'guess')],
  ];
  for (const [what, edit] of cases) assert.equal(tamper(edit), null, `rejects ${what}`);
});

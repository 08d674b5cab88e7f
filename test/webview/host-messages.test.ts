// Host -> webview messages are validated in the webviews: a malformed one is rejected (and, in the
// page, logged and never applied). The parsers are checked in Node on messages the real host code
// builds; the inspector is then checked in headless Chromium through the page's host connection.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { importSession } from '../../src/core/importers';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../../src/core/pipeline/plan';
import { planWith } from '../../src/core/strategies';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { buildInspectorSession } from '../../src/inspector/inspectorModel';
import { planToView } from '../../src/inspector/planViews';
import type { HostToInspector } from '../../src/protocol';
import { parseHostToChat } from '../../webview/chat/hostMessages';
import { parseHostToInspector } from '../../webview/inspector/hostMessages';
import { chatState } from './fixtures';
import { buildInspectorBundle, launchBrowser, openInspector, startHarnessServer, type HarnessServer } from './inspector-harness';

const ROOT = join(import.meta.dirname ?? __dirname, '..', '..');
const MESSAGES = importSession(readFileSync(join(ROOT, 'examples', 'session.jsonl'), 'utf8'), 'session.jsonl').messages;
const ctx = (): PlanContext => ({
  ...DEFAULT_PLAN_CONTEXT,
  contextWindow: 32_000,
  tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()),
});

function session(c: PlanContext) {
  return buildInspectorSession({
    source: 'Current session',
    readOnly: false,
    sessionId: 'host-messages',
    title: 'Valid session',
    messages: MESSAGES,
    effective: MESSAGES,
    compactions: [],
    ctx: c,
    overhead: { system: 100, tools: 100 },
    autoCompactThreshold: 25_000,
    canUndo: false,
    tailStartId: null,
  });
}

/** Malformed inspector messages, each breaking a shape the view relies on. */
function malformedInspector(valid: ReturnType<typeof session>, plan: ReturnType<typeof planToView>): Array<[string, unknown]> {
  return [
    ['not an object', 'session'],
    ['unknown type', { type: 'explode' }],
    ['session without rows', { type: 'session', session: { ...valid, rows: 'oops' } }],
    ['session with a row without an id', { type: 'session', session: { ...valid, rows: [{ ...valid.rows[0], id: 7 }] } }],
    [
      'session with a strategy without params',
      { type: 'session', session: { ...valid, strategies: [{ ...valid.strategies[0], params: null }] } },
    ],
    ['plan without a request id', { type: 'plan', plan: { ...plan, requestId: undefined } }],
    ['plan with archived ids that are not strings', { type: 'plan', plan: { ...plan, archivedIds: [1, 2] } }],
    ['planError without a message', { type: 'planError', requestId: 1 }],
    ['detail without text', { type: 'detail', detail: { id: valid.rows[0].id, kind: 'user-prompt', tokens: 1 } }],
    ['busy that is not a boolean', { type: 'busy', busy: 'yes' }],
    ['notice with an unknown level', { type: 'notice', level: 'fatal', message: 'x' }],
  ];
}

describe('host -> webview message validation', () => {
  test('the inspector accepts what the host builds and rejects every malformed shape', () => {
    const c = ctx();
    const s = session(c);
    const plan = planToView(planWith('sliding-window', MESSAGES, {}, c), 1, 2.5);
    const valid: HostToInspector[] = [
      { type: 'session', session: s },
      { type: 'plan', plan },
      { type: 'planError', requestId: 2, message: 'bad parameters' },
      { type: 'detail', detail: { id: s.rows[0].id, kind: s.rows[0].kind, tokens: 3, text: 'hi' } },
      { type: 'busy', busy: true, label: 'Summarizing…' },
      { type: 'busy', busy: false },
      { type: 'notice', level: 'error', message: 'failed' },
    ];
    for (const m of valid) assert.notEqual(parseHostToInspector(JSON.parse(JSON.stringify(m))), null, `accepts ${m.type}`);
    for (const [what, m] of malformedInspector(s, plan)) assert.equal(parseHostToInspector(m), null, `rejects: ${what}`);
  });

  test('the chat rejects malformed messages', () => {
    assert.notEqual(parseHostToChat({ type: 'state', state: chatState([]) }), null);
    assert.equal(parseHostToChat({ type: 'state', state: { ...chatState([]), items: 'x' } }), null);
    assert.equal(parseHostToChat({ type: 'item', item: { kind: 'bogus', id: 'a' } }), null);
    assert.equal(parseHostToChat({ type: 'delta', id: 'a' }), null);
    assert.equal(parseHostToChat({ type: 'nope' }), null);
  });
});

describe('inspector in headless Chromium: malformed host messages', () => {
  let browser: Browser;
  let server: HarnessServer;
  let bundle: Awaited<ReturnType<typeof buildInspectorBundle>>;

  before(async () => {
    bundle = await buildInspectorBundle();
    server = await startHarnessServer(bundle);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    bundle?.dispose();
  });

  test('an invalid message is logged and dropped, never applied; the view keeps working', async () => {
    const c = ctx();
    const { page, host, errors } = await openInspector(browser, server, c);
    try {
      const warnings: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'warning') warnings.push(m.text());
      });
      await host.showSession({ messages: MESSAGES, title: 'Valid session' });
      await page.waitForSelector('.toolbar h1');
      const valid = host.session;
      const plan = planToView(planWith('sliding-window', MESSAGES, {}, c), 1, 1);
      const bad = malformedInspector(valid, plan);
      // A malformed session that would rename the view, and a notice with a bad level.
      const renamed = { type: 'session', session: { ...valid, title: 'APPLIED', rows: [{ ...valid.rows[0], kind: 'nonsense' }] } };
      for (const [, m] of [...bad, ['renamed', renamed] as [string, unknown]])
        await page.evaluate((d) => window.dispatchEvent(new MessageEvent('message', { data: d })), m);
      // A valid notice after them: when it shows, everything before it was handled.
      await host.send({ type: 'notice', level: 'info', message: 'still listening' });
      await page.waitForSelector('.notice-info');

      assert.equal(warnings.length, bad.length + 1, `one warning per malformed message: ${JSON.stringify(warnings)}`);
      assert.ok(
        warnings.every((w) => w.includes('dropped a malformed host message')),
        JSON.stringify(warnings),
      );
      assert.ok(
        warnings.some((w) => w.includes('type "explode"')),
        'the warning names the message type',
      );
      assert.equal(await page.textContent('.toolbar h1'), 'Valid session', 'the malformed session was not applied');
      assert.equal(await page.locator('.timeline [role=option][data-kind="nonsense"]').count(), 0);
      assert.deepEqual(await page.locator('.notice span').allTextContents(), ['still listening'], 'only the valid notice was applied');
      assert.equal(await page.locator('[data-field="busy"]').count(), 0, 'the malformed busy was not applied');
      assert.deepEqual(errors, [], 'no page errors');
    } finally {
      await page.close();
    }
  });
});

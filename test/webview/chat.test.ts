// The chat sidebar webview in headless Chromium, driven by HostToChat messages exactly as the host
// sends them, with the page's real CSP. One browser for the whole file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ChatItem, HostToChat } from '../../src/protocol';
import { buildWebviewHtml, makeNonce, webviewCsp } from '../../src/extension/webviewHtml';
import { chatState, meter, richConversation, ANSWER_MD } from './fixtures';
import { WebviewHarness, type TestWindow, type WebviewPage } from './harness';
import { XSS_DOCUMENT, XSS_PAYLOADS } from './xss-corpus';

const ARTIFACTS = resolve(import.meta.dirname ?? __dirname, '../../test-artifacts');

// ---------------------------------------------------------------------------------------------
// The HTML shell (no browser)
// ---------------------------------------------------------------------------------------------

describe('webviewHtml', () => {
  const nonce = makeNonce();
  const html = buildWebviewHtml({
    title: 'Splitpoint <Chat> & "more"',
    nonce,
    cspSource: 'https://*.vscode-cdn.net',
    scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/chat.js',
    styleUris: ['https://file+.vscode-resource.vscode-cdn.net/ext/media/chat.css'],
  });

  test('the CSP allows scripts only by nonce and resources only from the extension, with no unsafe-inline or unsafe-eval', () => {
    const csp = webviewCsp('https://*.vscode-cdn.net', nonce);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|unsafe-hashes|strict-dynamic|\*;|https?:\s|data:[^;]*script/);
    const directives = Object.fromEntries(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([k, ...v]) => [k, v.join(' ')]),
    );
    assert.deepEqual(directives, {
      'default-src': "'none'",
      'img-src': 'https://*.vscode-cdn.net data:',
      'style-src': 'https://*.vscode-cdn.net',
      'font-src': 'https://*.vscode-cdn.net',
      'script-src': `'nonce-${nonce}'`,
      'base-uri': "'none'",
      'form-action': "'none'",
    });
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
    assert.ok(meta, 'the page carries its CSP in a meta tag');
    assert.equal(meta[1]!.replace(/&#39;/g, "'"), csp);
    assert.ok(html.indexOf('Content-Security-Policy') < html.indexOf('<script'), 'the CSP comes before any script');
  });

  test('the HTML has no inline script, no inline style and no event-handler attributes; every script has the nonce and a src', () => {
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 1);
    for (const [, attrs, body] of scripts) {
      assert.equal(body!.trim(), '', 'no inline script');
      assert.match(attrs!, new RegExp(`nonce="${nonce}"`));
      assert.match(attrs!, /\ssrc="[^"]+"/);
    }
    assert.doesNotMatch(html, /<style\b/i);
    assert.doesNotMatch(html, /\sstyle=/i);
    assert.doesNotMatch(html, /\son[a-z]+=/i);
    assert.match(html, /<title>Splitpoint &lt;Chat&gt; &amp; "more"<\/title>/);
    assert.match(html, /<div id="root"><\/div>/);
  });

  test('rejects a weak nonce and a cspSource that could break out of the policy', () => {
    const base = { title: 't', scriptUri: 's.js', styleUris: [], cspSource: 'https://x', nonce: makeNonce() };
    assert.throws(() => buildWebviewHtml({ ...base, nonce: 'abc' }));
    assert.throws(() => buildWebviewHtml({ ...base, nonce: `${makeNonce()}" onload="x` }));
    assert.throws(() => buildWebviewHtml({ ...base, cspSource: "https://x; script-src 'unsafe-inline'" }));
    assert.throws(() => buildWebviewHtml({ ...base, cspSource: 'https://x" ><script>' }));
    assert.doesNotThrow(() => buildWebviewHtml({ ...base, cspSource: "'self' https://*.vscode-cdn.net" }));
  });

  test('makeNonce gives 32 alphanumeric characters, different every time', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const n = makeNonce();
      assert.match(n, /^[A-Za-z0-9]{32}$/);
      seen.add(n);
    }
    assert.equal(seen.size, 200);
  });
});

// ---------------------------------------------------------------------------------------------
// The chat view in Chromium
// ---------------------------------------------------------------------------------------------

describe('chat webview in headless Chromium', () => {
  let h: WebviewHarness;

  before(async () => {
    h = await WebviewHarness.start();
  });
  after(async () => {
    await h?.close();
  });

  const open = (opts: Parameters<WebviewHarness['open']>[0] = {}) => h.open(opts);

  /** What every page must satisfy: no errors, no leaks, no violations, no stray messages. */
  async function assertClean(p: WebviewPage) {
    const probe = await p.probe();
    assert.deepEqual(p.pageErrors, [], 'no uncaught errors');
    assert.deepEqual(p.unexpectedRequests(), [], 'no requests beyond the bundle and styles');
    assert.deepEqual(p.dialogs, [], 'no dialogs');
    assert.deepEqual(probe.csp, [], 'no CSP violations');
    assert.deepEqual(p.consoleCsp, [], 'no CSP messages on the console');
    assert.deepEqual(probe.unexpectedPostMessage, [], 'nothing called window.postMessage');
    assert.equal(probe.acquired, 1, 'acquireVsCodeApi was called exactly once');
  }

  async function openWith(items: ChatItem[], over: Parameters<typeof chatState>[1] = {}, opts: Parameters<WebviewHarness['open']>[0] = {}) {
    const p = await open(opts);
    await p.deliver({ type: 'state', state: chatState(items, over) });
    await p.settle();
    return p;
  }

  test('renders a conversation streamed as state, items and hundreds of deltas, re-rendering only the streaming item', async () => {
    const p = await open();
    assert.deepEqual(await p.posted(), [{ type: 'ready' }], "the view announces 'ready' on load");
    await p.deliver({ type: 'state', state: chatState([{ kind: 'user', id: 'u1', text: 'Explain the plan' }]) });
    await p.deliver(
      { type: 'busy', busy: true, compacting: false },
      { type: 'item', item: { kind: 'thinking', id: 'th1', text: '', streaming: true } },
    );
    await p.settle();
    // Watch the finished user message: streaming must not touch it.
    await p.page.evaluate(() => {
      const w = window as unknown as { __mutations: number };
      w.__mutations = 0;
      new MutationObserver((ms) => (w.__mutations += ms.length)).observe(document.querySelector('.item.user')!, {
        subtree: true,
        childList: true,
        attributes: true,
        characterData: true,
      });
    });
    for (const chunk of chunks('Weighing memoization against re-encoding…', 3)) await p.deliver({ type: 'delta', id: 'th1', text: chunk });
    await p.deliver({
      type: 'item',
      item: { kind: 'thinking', id: 'th1', text: 'Weighing memoization against re-encoding…', streaming: false },
    });
    await p.deliver({ type: 'item', item: { kind: 'assistant', id: 'a1', text: '', streaming: true } });
    const pieces = chunks(ANSWER_MD, 2);
    assert.ok(pieces.length > 200);
    // In batches, so several animation frames pass while streaming.
    for (let i = 0; i < pieces.length; i += 25) {
      await p.deliver(...pieces.slice(i, i + 25).map((text): HostToChat => ({ type: 'delta', id: 'a1', text })));
      if (i % 100 === 0) await p.settle();
    }
    await p.settle();
    assert.equal(await p.page.locator('.item.assistant .cursor').count(), 1, 'a streaming cursor while busy');
    await p.deliver(
      { type: 'item', item: { kind: 'assistant', id: 'a1', text: ANSWER_MD, streaming: false } },
      { type: 'busy', busy: false, compacting: false },
    );
    await p.settle();

    const md = p.page.locator('.item.assistant .md');
    assert.equal(await md.locator('h2').textContent(), 'Plan');
    assert.equal(await md.locator('strong').first().textContent(), 'memoize');
    assert.equal(await md.locator('ol > li').count(), 2);
    assert.match((await md.locator('pre.md-code code.language-ts').textContent()) ?? '', /return cache\.get\(m\.id\) \?\? measure\(m\);/);
    assert.equal(await md.locator('table tbody tr').count(), 2);
    assert.equal(await md.locator('blockquote').count(), 1);
    // Links are text with the address shown, never clickable.
    assert.equal(await md.locator('a').count(), 0);
    assert.equal(await md.locator('.md-link').textContent(), 'the design');
    assert.equal(await md.locator('.md-href').textContent(), '<https://example.com/design>');
    assert.equal(await p.page.locator('.item.assistant .cursor').count(), 0, 'no cursor once done');
    // Thinking is collapsed, its text not in the DOM until opened.
    const thinking = p.page.locator('.thinking-toggle');
    assert.equal(await thinking.getAttribute('aria-expanded'), 'false');
    assert.equal(await p.page.locator('.thinking-text').count(), 0);
    await thinking.click();
    assert.equal(await p.page.locator('.thinking-text').textContent(), 'Weighing memoization against re-encoding…');

    assert.equal(
      await p.page.evaluate(() => (window as unknown as { __mutations: number }).__mutations),
      0,
      'the user message was never re-rendered',
    );
    assert.deepEqual(await p.posted(), [{ type: 'ready' }]);
    await assertClean(p);
  });

  test('applies deltas in order with items: unknown ids become assistant text, tool deltas append output', async () => {
    const p = await open();
    await p.deliver(
      { type: 'state', state: chatState([]) },
      { type: 'delta', id: 'orphan', text: 'Hello ' },
      { type: 'delta', id: 'orphan', text: 'world' },
      { type: 'item', item: { kind: 'tool', id: 't1', name: 'run_command', input: '{}', status: 'running', command: 'ls', output: 'a\n' } },
      { type: 'delta', id: 't1', text: 'b\n' },
      { type: 'delta', id: 't1', text: 'c' },
      { type: 'item', item: { kind: 'assistant', id: 'x', text: 'stale', streaming: true } },
      { type: 'delta', id: 'x', text: ' + more' },
      { type: 'item', item: { kind: 'assistant', id: 'x', text: 'final', streaming: false } },
    );
    await p.settle();
    const texts = await p.page.locator('.item.assistant .md').allTextContents();
    assert.deepEqual(
      texts.map((x) => x.trim()),
      ['Hello world', 'final'],
    );
    await p.page.locator('.card-header').click();
    assert.equal(await p.page.locator('.card-body .output pre').last().textContent(), 'a\nb\nc');
    await assertClean(p);
  });

  test('Approve on an awaiting-approval card posts approve with the tool_use id', async () => {
    const p = await openWith(richConversation());
    const card = p.page.locator('article.card.status-awaiting-approval');
    assert.equal(await card.locator('.card-header').getAttribute('aria-expanded'), 'true', 'a card awaiting approval starts open');
    assert.match((await card.locator('pre.command').textContent()) ?? '', /npm test -- tokens/);
    await card.getByRole('button', { name: 'Approve run_command' }).click();
    assert.deepEqual(await p.intents(), [{ type: 'approve', toolUseId: 'toolu_run' }]);
    assert.match((await card.locator('.approval').textContent()) ?? '', /Approved/);
    assert.equal(await card.getByRole('button', { name: 'Approve run_command' }).count(), 0, 'no double approval');
    // The host moves the call on: the approval bar goes away.
    await p.deliver({ type: 'item', item: { ...(richConversation().at(-1) as Extract<ChatItem, { kind: 'tool' }>), status: 'running' } });
    await p.settle();
    assert.equal(await p.page.locator('.approval').count(), 0);
    assert.equal(await p.page.locator('.status-badge.s-running').count(), 1);
    await assertClean(p);
  });

  test('Reject posts reject without a reason; Reject with reason posts the typed reason', async () => {
    const awaiting = (id: string): ChatItem => ({
      kind: 'tool',
      id,
      name: 'write_file',
      input: '{"path":"a.txt"}',
      status: 'awaiting-approval',
    });
    const p = await openWith([awaiting('toolu_a'), awaiting('toolu_b')]);
    await p.page.getByRole('button', { name: 'Reject write_file' }).first().click();
    const second = p.page.locator('article.card').nth(1);
    await second.getByRole('button', { name: 'Reject with reason…' }).click();
    const reason = second.getByRole('textbox', { name: 'Reason for rejecting write_file' });
    // Focus moves in an effect after the render: wait for it (bounded), then assert.
    for (let i = 0; i < 40 && !(await reason.evaluate((el) => el === document.activeElement)); i++) await p.page.waitForTimeout(50);
    assert.ok(await reason.evaluate((el) => el === document.activeElement), 'the reason box takes focus');
    await reason.fill('  Use a temp dir instead  ');
    await reason.press('Enter');
    assert.deepEqual(await p.intents(), [
      { type: 'reject', toolUseId: 'toolu_a' },
      { type: 'reject', toolUseId: 'toolu_b', reason: 'Use a temp dir instead' },
    ]);
    await assertClean(p);
  });

  test('Enter sends, Shift+Enter adds a line; while busy Send becomes Stop, which posts stop', async () => {
    const p = await openWith([]);
    const box = p.page.getByRole('textbox', { name: 'Message' });
    await box.click();
    await box.press('Enter');
    assert.deepEqual(await p.intents(), [], 'an empty message is not sent');
    await box.pressSequentially('first line');
    await box.press('Shift+Enter');
    await box.pressSequentially('second line');
    await box.press('Enter');
    assert.deepEqual(await p.intents(), [{ type: 'send', text: 'first line\nsecond line' }]);
    assert.equal(await box.inputValue(), '', 'the box empties after sending');

    await p.deliver({ type: 'busy', busy: true, compacting: false });
    await p.settle();
    assert.equal(await p.page.getByRole('button', { name: 'Send message' }).count(), 0, 'no Send while busy');
    await box.pressSequentially('typed while busy');
    await box.press('Enter');
    assert.equal(await box.inputValue(), 'typed while busy', 'the draft is kept while busy');
    await p.page.getByRole('button', { name: 'Stop the agent' }).click();
    await box.press('Escape');
    assert.deepEqual((await p.intents()).slice(1), [{ type: 'stop' }, { type: 'stop' }]);
    assert.equal(await p.page.locator('.status-line').textContent(), 'Working…');

    await p.deliver({ type: 'busy', busy: false, compacting: false });
    await p.settle();
    await p.page.getByRole('button', { name: 'Send message' }).click();
    assert.deepEqual((await p.intents()).at(-1), { type: 'send', text: 'typed while busy' });
    // focusInput puts the caret in the box.
    await p.page.getByRole('button', { name: 'New chat' }).focus();
    await p.deliver({ type: 'focusInput' });
    assert.ok(await box.evaluate((el) => el === document.activeElement));
    await assertClean(p);
  });

  test('a compaction divider shows before → after, strategy and trigger; Open transcript posts openTranscript, Undo compaction undoCompaction', async () => {
    const p = await openWith(richConversation());
    const divider = p.page.locator('.item.compaction');
    assert.equal(
      (await divider.textContent())?.replace(/\s+/g, ' ').trim(),
      'Compacted: 152,340 → 9,812 tokens · recursive-summarization · auto · 42 messages archived · Open transcript · Undo compaction',
    );
    await divider.getByRole('button', { name: /Open transcript/ }).click();
    await divider.getByRole('button', { name: 'Undo compaction' }).click();
    assert.deepEqual(await p.intents(), [
      { type: 'openTranscript', path: '/work/.transcripts/session-1/2026-11-22T10-00-00.jsonl' },
      { type: 'undoCompaction' },
    ]);
    await assertClean(p);
  });

  test('the context meter shows used / window and %, marks the auto-compact threshold and changes colour near it', async () => {
    const p = await openWith([], { context: meter(45_210, 200_000, 160_000) });
    const m = p.page.locator('.meter');
    assert.match((await m.textContent()) ?? '', /45,210 \/ 200,000 tokens · 23%.*auto-compact at 80%/);
    assert.equal(await m.getAttribute('class'), 'meter level-ok');
    const geometry = () =>
      p.page.evaluate(() => {
        const bar = document.querySelector('.meter-bar')!.getBoundingClientRect();
        const mark = document.querySelector('.meter-threshold')?.getBoundingClientRect();
        return { bar, mark: mark ? (mark.left + mark.width / 2 - bar.left) / bar.width : null };
      });
    const g = await geometry();
    assert.ok(g.mark !== null && Math.abs(g.mark - 0.8) < 0.02, `threshold mark at 80% of the bar (got ${g.mark})`);
    assert.equal(await p.page.locator('[role="meter"]').getAttribute('aria-valuenow'), '45210');

    await p.deliver({ type: 'context', context: meter(140_000, 200_000, 160_000) });
    await p.settle();
    assert.equal(await m.getAttribute('class'), 'meter level-warn');
    await p.deliver({ type: 'context', context: meter(170_000, 200_000, 160_000) });
    await p.settle();
    assert.equal(await m.getAttribute('class'), 'meter level-over');
    const colours = await p.page.evaluate(() => getComputedStyle(document.querySelector('.meter-fill')!).backgroundColor);
    assert.equal(colours, 'rgb(241, 76, 76)', 'over the threshold the bar takes the theme error colour');
    await p.deliver({ type: 'context', context: meter(10_000, 200_000, null) });
    await p.settle();
    assert.equal(await p.page.locator('.meter-threshold').count(), 0, 'no mark when auto-compact is off');
    assert.match((await m.textContent()) ?? '', /auto-compact off/);
    await assertClean(p);
  });

  test('tool cards: capped output with Show all, the micro-compaction badge, diff lines by kind, input as JSON', async () => {
    const p = await openWith(richConversation());
    const read = p.page.locator('article.card').filter({ hasText: 'read_file' });
    assert.match((await read.locator('.trunc-badge').textContent()) ?? '', /^truncated by micro-compaction \(48,213 chars\)$/);
    assert.equal(await read.locator('.card-header').getAttribute('aria-expanded'), 'false', 'finished cards start collapsed');
    await read.locator('.card-header').click();
    assert.match((await read.locator('.section').first().textContent()) ?? '', /"path": "src\/core\/tokens\.ts"/);
    const out = read.locator('.output').last();
    const shown = (await out.locator('pre').textContent()) ?? '';
    assert.ok(shown.includes('line 60 of') && !shown.includes('line 61 of'), 'output capped at 60 lines');
    await out.getByRole('button', { name: /Show all/ }).click();
    assert.ok(((await out.locator('pre').textContent()) ?? '').includes('line 150 of tokens.ts'));

    const edit = p.page.locator('article.card').filter({ hasText: 'edit_file' });
    await edit.locator('.card-header').press('Enter');
    assert.deepEqual(await edit.locator('.dl.add').allTextContents(), [
      '+    const hit = this.cache.get(m.id);\n',
      '+    if (hit !== undefined) return hit;\n',
      '+    return this.remember(m);\n',
    ]);
    assert.deepEqual(await edit.locator('.dl.del').allTextContents(), ['-    return this.encode(m).length;\n']);
    assert.equal(await edit.locator('.dl.hunk').count(), 1);
    assert.equal(await edit.locator('.dl.meta').count(), 2);
    assert.equal((await edit.locator('.diff-stat').textContent())?.trim(), '+3 −1');
    await assertClean(p);
  });

  test('an error that ended the turn offers Retry, which posts retry', async () => {
    const p = await openWith([
      { kind: 'user', id: 'u1', text: 'hi' },
      { kind: 'error', id: 'old', message: 'earlier failure', retryable: true },
      { kind: 'assistant', id: 'a1', text: 'recovered', streaming: false },
      { kind: 'error', id: 'e1', message: 'Overloaded (529)', retryable: true },
      { kind: 'notice', id: 'n1', message: 'Will not retry automatically.' },
    ]);
    assert.equal(await p.page.getByRole('button', { name: 'Retry' }).count(), 1, 'only the last error offers Retry');
    await p.page.getByRole('button', { name: 'Retry' }).click();
    assert.deepEqual(await p.intents(), [{ type: 'retry' }]);
    await assertClean(p);
  });

  test('toolbar: the API-key empty state, New chat, Compact with a focus prompt, Open inspector', async () => {
    const p = await openWith([], { hasApiKey: false });
    const empty = p.page.locator('.empty.api-key');
    assert.equal(await empty.count(), 1, 'without a key the view says so prominently');
    await empty.getByRole('button', { name: 'Set API key' }).click();
    await p.page.getByRole('button', { name: 'New chat' }).click();
    await p.page.getByRole('button', { name: 'Compact' }).click();
    const focus = p.page.getByRole('textbox', { name: 'Compaction focus (optional)' });
    await focus.fill('keep the tokenizer benchmark numbers');
    await focus.press('Enter');
    await p.page.getByRole('button', { name: 'Compact' }).click();
    await p.page.getByRole('button', { name: 'Compact now' }).click();
    await p.page.getByRole('button', { name: 'Inspector' }).click();
    assert.deepEqual(await p.intents(), [
      { type: 'setApiKey' },
      { type: 'newChat' },
      { type: 'compact', focus: 'keep the tokenizer benchmark numbers' },
      { type: 'compact' },
      { type: 'openInspector' },
    ]);
    await p.deliver({ type: 'state', state: chatState([], { hasApiKey: true }) });
    await p.settle();
    assert.equal(await p.page.locator('.empty.api-key').count(), 0);
    assert.equal(await p.page.locator('.empty.welcome').count(), 1);
    await p.deliver({ type: 'busy', busy: true, compacting: true });
    await p.settle();
    assert.equal(await p.page.locator('.status-line').textContent(), 'Compacting context…');
    assert.ok(await p.page.getByRole('button', { name: 'Compacting…' }).isDisabled());
    assert.equal(
      await p.page.locator('[role="status"][aria-live="polite"]').textContent(),
      'Compacting context…',
      'the live region announces it',
    );
    await assertClean(p);
  });

  test('state survives hide/show: after a reload the saved items render before the host answers', async () => {
    const p = await openWith(richConversation());
    await p.deliver({ type: 'delta', id: 'a2', text: ' (streamed tail)' });
    await p.page.getByRole('textbox', { name: 'Message' }).fill('half-written draft');
    await p.page.locator('article.card').filter({ hasText: 'read_file' }).locator('.card-header').click();
    await p.page.waitForFunction(() => {
      const s = (window as unknown as TestWindow).__vscodeTest.savedState() as
        { chat?: { items?: Array<{ text?: string }> }; ui?: { draft?: string } } | undefined;
      return s?.ui?.draft === 'half-written draft' && s.chat?.items?.some((i) => i.text?.endsWith('(streamed tail)'));
    });
    await p.page.reload();
    await p.page.waitForFunction(() => (window as unknown as TestWindow).__vscodeTest.posted.some((m) => m.type === 'ready'));
    // No 'state' delivered after the reload: everything below comes from the saved copy.
    const atReady = await p.page.evaluate(() => (window as unknown as TestWindow).__vscodeTest.rootTextAtReady);
    assert.match(atReady ?? '', /Make token counting faster/, "items were rendered before 'ready' was posted");
    assert.match(atReady ?? '', /Now I will run the tests\. \(streamed tail\)/);
    assert.equal(await p.page.locator('.item, .card').count(), richConversation().length);
    assert.equal(await p.page.getByRole('textbox', { name: 'Message' }).inputValue(), 'half-written draft');
    assert.equal(
      await p.page.locator('article.card').filter({ hasText: 'read_file' }).locator('.card-header').getAttribute('aria-expanded'),
      'true',
      'opened cards stay open',
    );
    assert.deepEqual(await p.posted(), [{ type: 'ready' }]);
    // The host's answer then replaces it.
    await p.deliver({ type: 'state', state: chatState([{ kind: 'user', id: 'u9', text: 'fresh session' }], { sessionId: 'session-2' }) });
    await p.settle();
    assert.deepEqual(await p.page.locator('.user-text').allTextContents(), ['fresh session']);
    await assertClean(p);
  });

  test('keyboard: Tab reaches Approve and Enter approves; Space and Enter toggle a card; focus is visible', async () => {
    const p = await openWith(richConversation());
    await p.page.locator('body').click({ position: { x: 2, y: 2 } });
    let reached = false;
    const visited: string[] = [];
    for (let i = 0; i < 80 && !reached; i++) {
      await p.page.keyboard.press('Tab');
      const label = await p.page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return el ? (el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 30) ?? el.tagName) : '';
      });
      visited.push(label);
      reached = label === 'Approve run_command';
    }
    assert.ok(reached, `Tab reaches Approve (visited: ${visited.join(' | ')})`);
    assert.ok(visited.includes('New chat') && visited.includes('Conversation'), 'toolbar and conversation are in the tab order');
    const outline = await p.page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    assert.notEqual(outline, 'none', 'the focused button shows a focus ring');
    await p.page.keyboard.press('Enter');
    assert.deepEqual(await p.intents(), [{ type: 'approve', toolUseId: 'toolu_run' }]);
    assert.equal(await p.page.evaluate(() => document.activeElement?.classList.contains('card-header')), true, 'focus stays on the card');

    const header = p.page.locator('article.card').filter({ hasText: 'read_file' }).locator('.card-header');
    await header.focus();
    await p.page.keyboard.press('Space');
    assert.equal(await header.getAttribute('aria-expanded'), 'true');
    await p.page.keyboard.press('Enter');
    assert.equal(await header.getAttribute('aria-expanded'), 'false');
    await assertClean(p);
  });

  test('a long conversation (400 items) renders quickly and streams without re-rendering the rest', async () => {
    const items: ChatItem[] = [];
    for (let i = 0; i < 100; i++) {
      items.push({ kind: 'user', id: `u${i}`, text: `question ${i}` });
      items.push({ kind: 'assistant', id: `a${i}`, text: `Answer **${i}** with \`code\` and a list:\n\n- one\n- two`, streaming: false });
      items.push({ kind: 'tool', id: `t${i}`, name: 'read_file', input: `{"path":"f${i}.ts"}`, status: 'done', output: 'x'.repeat(2000) });
      items.push({ kind: 'notice', id: `n${i}`, message: `notice ${i}` });
    }
    const p = await open();
    const took = await p.page.evaluate(
      (state) =>
        new Promise<number>((done) => {
          const t0 = performance.now();
          (window as unknown as TestWindow).__vscodeTest.deliverAll([{ type: 'state', state }]);
          requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0)));
        }),
      chatState(items),
    );
    assert.equal(await p.page.locator('.item.assistant').count(), 100);
    assert.ok(took < 4000, `initial render of 400 items took ${took.toFixed(0)} ms`);
    await p.deliver(
      { type: 'item', item: { kind: 'assistant', id: 'live', text: '', streaming: true } },
      { type: 'busy', busy: true, compacting: false },
    );
    await p.settle();
    const stats = await p.page.evaluate(async () => {
      let mutations = 0;
      const conv = document.querySelector('.conversation-inner')!;
      const live = conv.lastElementChild!;
      const obs = new MutationObserver((ms) => {
        for (const m of ms) if (!live.contains(m.target)) mutations++;
      });
      obs.observe(conv, { subtree: true, childList: true, attributes: true, characterData: true });
      const t = (window as unknown as TestWindow).__vscodeTest;
      const t0 = performance.now();
      for (let frame = 0; frame < 20; frame++) {
        t.deliverAll(Array.from({ length: 100 }, (_, i) => ({ type: 'delta' as const, id: 'live', text: `w${frame}-${i} ` })));
        await new Promise((r) => requestAnimationFrame(r));
      }
      await new Promise((r) => requestAnimationFrame(r));
      obs.disconnect();
      return { mutations, ms: performance.now() - t0, text: live.textContent ?? '' };
    });
    const gap = () =>
      p.page.evaluate(() => {
        const c = document.querySelector('.conversation')!;
        return c.scrollHeight - c.scrollTop - c.clientHeight;
      });
    assert.ok((await gap()) < 2, 'the view follows the stream at the bottom');
    // Scrolled up to read: new text does not yank the view; "Jump to latest" brings it back.
    await p.page.evaluate(() => document.querySelector('.conversation')!.scrollTo({ top: 0 }));
    await p.page.getByRole('button', { name: /Jump to latest/ }).waitFor();
    await p.deliver({ type: 'delta', id: 'live', text: 'more text\n\nand more' });
    await p.settle();
    assert.equal(await p.page.evaluate(() => document.querySelector('.conversation')!.scrollTop), 0);
    await p.page.getByRole('button', { name: /Jump to latest/ }).click();
    await p.settle();
    assert.ok((await gap()) < 2);
    assert.equal(stats.mutations, 0, 'other items untouched by 2,000 deltas');
    assert.ok(stats.text.includes('w19-99'), 'all deltas applied');
    assert.ok(stats.ms < 8000, `2,000 deltas over 20 frames took ${stats.ms.toFixed(0)} ms`);
    await assertClean(p);
  });

  // -------------------------------------------------------------------------------------------
  // XSS corpus
  // -------------------------------------------------------------------------------------------

  /** Structural checks on the rendered model output, independent of CSP. */
  async function assertInert(p: WebviewPage, where = '.md') {
    const problems = await p.page.evaluate((sel) => {
      const out: string[] = [];
      const allowedTags = new Set([
        'p',
        'br',
        'hr',
        'h1',
        'h2',
        'h3',
        'h4',
        'h5',
        'h6',
        'strong',
        'em',
        'b',
        'i',
        'del',
        's',
        'code',
        'pre',
        'blockquote',
        'ul',
        'ol',
        'li',
        'table',
        'thead',
        'tbody',
        'tr',
        'th',
        'td',
        'span',
        'img',
        'sup',
        'sub',
        'kbd',
      ]);
      const allowedAttrs = new Set(['class', 'title', 'alt', 'src', 'start', 'align']);
      for (const root of document.querySelectorAll(sel)) {
        for (const el of root.querySelectorAll('*')) {
          const tag = el.tagName.toLowerCase();
          if (tag === 'button' && el.classList.contains('md-copy')) continue;
          if (!allowedTags.has(tag)) out.push(`<${tag}>`);
          for (const a of el.attributes) if (!allowedAttrs.has(a.name)) out.push(`<${tag} ${a.name}="${a.value.slice(0, 40)}">`);
          if (tag === 'img' && !/^data:image\/(png|gif|jpe?g|webp);base64,/.test(el.getAttribute('src') ?? ''))
            out.push(`<img src="${el.getAttribute('src')}">`);
          const cls = el.getAttribute('class');
          if (cls && !cls.split(/\s+/).every((c) => /^(md-[a-z-]+|language-[\w+#.-]+)$/.test(c))) out.push(`class="${cls}"`);
        }
      }
      // Anywhere in the document: nothing a payload could have planted.
      for (const el of document.querySelectorAll('*')) {
        for (const a of el.attributes) if (/^on/i.test(a.name)) out.push(`${el.tagName} ${a.name}`);
      }
      const planted = document.querySelectorAll(
        'iframe, object, embed, form, base, frame, frameset, a[href], svg, math, template, video, audio, marquee, noscript, details, ' +
          'meta:not([http-equiv="Content-Security-Policy"]):not([charset]):not([name="viewport"])',
      );
      for (const el of planted) out.push(`planted <${el.tagName.toLowerCase()}>`);
      const scripts = [...document.scripts].map((s) => new URL(s.src || 'inline:', location.href).pathname);
      if (scripts.join() !== '/test/fake-vscode.js,/chat.js' && scripts.join() !== '/test/fake-vscode.js,/sanitize.js')
        out.push(`scripts ${scripts.join()}`);
      if (document.querySelectorAll('style').length) out.push('<style> element');
      if (document.querySelectorAll('link').length !== 2) out.push('extra <link>');
      if (document.querySelectorAll('#root').length !== 1 || !document.getElementById('root')!.matches('body > div'))
        out.push('#root clobbered');
      return out;
    }, where);
    assert.deepEqual(problems, []);
  }

  /** Clicks, hovers and focuses everything the model produced, to fire any handler that survived. */
  const MODEL_TEXT =
    '.md, .user-text, .thinking-text, .output pre, .diff, .error-message, .item.notice, .compaction-text, .tool-name, .tool-summary';

  async function poke(p: WebviewPage, where = '.md') {
    await p.page.evaluate((sel) => {
      for (const el of document.querySelectorAll<HTMLElement>(`${sel} *`)) {
        if (el.classList.contains('md-copy')) continue;
        for (const type of ['mouseover', 'mouseenter', 'focus', 'click']) el.dispatchEvent(new Event(type, { bubbles: true }));
        el.click();
      }
    }, where);
    await p.settle();
    await p.page.waitForTimeout(100);
  }

  async function assertNothingFired(p: WebviewPage, t: { diagnostic(msg: string): void }, label: string) {
    const probe = await p.probe();
    assert.equal(probe.xss, undefined, 'no payload ran');
    assert.deepEqual(p.dialogs, [], 'no dialog opened');
    assert.deepEqual(probe.unexpectedPostMessage, [], 'no window.postMessage / parent.postMessage');
    assert.deepEqual(probe.opened, [], 'no window.open');
    assert.equal(probe.acquired, 1, 'no second acquireVsCodeApi()');
    assert.ok(probe.acquireIsFunction, 'acquireVsCodeApi not clobbered');
    assert.deepEqual(
      (await p.posted()).filter((m) => m.type !== 'ready'),
      [],
      'the page posted nothing but ready',
    );
    assert.deepEqual(p.unexpectedRequests(), [], 'no request left the page other than the bundle and css');
    assert.deepEqual(
      h.served.filter((s) => /leak/.test(s)),
      [],
      'the server saw no leak requests',
    );
    assert.deepEqual(p.pageErrors, []);
    // CSP violations caused by payloads would be acceptable (the policy doing its job), but with
    // raw HTML escaped and DOMPurify in front there should be none; record whatever there is.
    t.diagnostic(`${label}: ${probe.csp.length} CSP violation(s)${probe.csp.length ? `: ${JSON.stringify(probe.csp)}` : ''}`);
    assert.deepEqual(probe.csp, [], 'raw HTML never reaches a parser, so not even a blocked attempt');
    assert.deepEqual(p.consoleCsp, []);
  }

  /** The app still works after the corpus: a card's Approve reaches the host. */
  async function assertStillWorks(p: WebviewPage) {
    await p.deliver({
      type: 'item',
      item: { kind: 'tool', id: 'toolu_after', name: 'write_file', input: '{}', status: 'awaiting-approval' },
    });
    await p.settle();
    await p.page.getByRole('button', { name: 'Approve write_file' }).last().click();
    assert.deepEqual((await p.intents()).at(-1), { type: 'approve', toolUseId: 'toolu_after' });
  }

  test(`XSS corpus (${XSS_PAYLOADS.length} payloads) streamed as deltas, split mid-tag, runs nothing and loads nothing`, async (t) => {
    const p = await openWith([{ kind: 'user', id: 'u1', text: 'summarize the README' }]);
    await p.deliver(
      { type: 'busy', busy: true, compacting: false },
      { type: 'item', item: { kind: 'assistant', id: 'evil', text: '', streaming: true } },
    );
    const pieces = chunks(XSS_DOCUMENT, 7);
    for (let i = 0; i < pieces.length; i += 40) {
      await p.deliver(...pieces.slice(i, i + 40).map((text): HostToChat => ({ type: 'delta', id: 'evil', text })));
      await p.settle(); // every partial document is rendered on the way
    }
    await p.deliver(
      { type: 'item', item: { kind: 'assistant', id: 'evil', text: XSS_DOCUMENT, streaming: false } },
      { type: 'busy', busy: false, compacting: false },
    );
    await p.settle();
    // The payloads are visible as text.
    const text = (await p.page.locator('.item.assistant .md').textContent()) ?? '';
    assert.ok(text.includes('<script>window.__xss=1</script>'), 'raw HTML is shown as text');
    assert.ok(text.includes('<javascript:window.__xss=5>'), 'a javascript: link shows its address as text');
    await poke(p);
    await assertInert(p);
    await assertNothingFired(p, t, 'deltas');
    await assertStillWorks(p);
  });

  test('XSS corpus delivered as items of every kind runs nothing and loads nothing', async (t) => {
    const p = await openWith([]);
    const items: ChatItem[] = [];
    for (const x of XSS_PAYLOADS) {
      items.push({ kind: 'assistant', id: `a${x.n}`, text: x.text, streaming: false });
      items.push({ kind: 'user', id: `u${x.n}`, text: x.text });
    }
    const evil = XSS_PAYLOADS.map((x) => x.text).join('\n');
    items.push(
      { kind: 'thinking', id: 'th', text: evil, streaming: false },
      {
        kind: 'tool',
        id: 'tool-evil"><img src=x onerror=window.__xss=900>',
        name: '<img src=x onerror=window.__xss=901>',
        input: evil,
        status: 'awaiting-approval',
        output: evil,
        isError: true,
        command: '<script>window.__xss=902</script>',
        diff: {
          path: '<svg onload=window.__xss=903>',
          unified: evil
            .split('\n')
            .map((l) => `+${l}`)
            .join('\n'),
          isNewFile: true,
        },
        truncated: { originalChars: 1 },
      },
      {
        kind: 'compaction',
        id: 'c',
        strategy: '<img src=x onerror=window.__xss=904>',
        trigger: '<b>auto</b>',
        tokensBefore: 2,
        tokensAfter: 1,
        transcriptPath: 'javascript:window.__xss=905',
        archivedCount: 1,
      },
      { kind: 'error', id: 'e', message: evil, retryable: true },
      { kind: 'notice', id: 'n', message: evil },
    );
    await p.deliver(...items.map((item): HostToChat => ({ type: 'item', item })));
    await p.settle();
    assert.equal(await p.page.locator('.item.assistant').count(), XSS_PAYLOADS.length);
    // Open everything so every text path is in the DOM.
    await p.page.locator('.thinking-toggle').click();
    for (const b of await p.page.locator('.output button, .section > .link-button').all()) await b.click();
    assert.ok(((await p.page.locator('.thinking-text').textContent()) ?? '').includes('<script>window.__xss=1</script>'));
    await poke(p, MODEL_TEXT);
    await assertInert(p);
    await assertNothingFired(p, t, 'items');
    // The tool's odd id still round-trips exactly.
    await p.page.getByRole('button', { name: 'Approve <img src=x onerror=window.__xss=901>' }).click();
    assert.deepEqual(await p.intents(), [{ type: 'approve', toolUseId: 'tool-evil"><img src=x onerror=window.__xss=900>' }]);
    await p.clearPosted();
    await p.page
      .locator('.item.compaction')
      .getByRole('button', { name: /Open transcript/ })
      .click();
    assert.deepEqual(
      await p.intents(),
      [{ type: 'openTranscript', path: 'javascript:window.__xss=905' }],
      'the path is data for the host, never a link',
    );
    await p.clearPosted();
    await assertStillWorks(p);
  });

  test('XSS corpus as raw HTML through the DOMPurify layer alone (markdown escaping bypassed) is inert', async (t) => {
    const p = await open({ page: 'sanitize' });
    await p.page.evaluate(
      (payloads) => {
        const w = window as unknown as { __renderRaw(html: string): void; __renderMarkdown(md: string): void };
        for (const x of payloads) {
          w.__renderRaw(x);
          w.__renderMarkdown(x);
        }
      },
      XSS_PAYLOADS.map((x) => x.text),
    );
    await p.settle();
    assert.equal(await p.page.locator('#root > .md').count(), XSS_PAYLOADS.length * 2);
    // Sanity: the layer keeps harmless structure.
    await p.page.evaluate(() =>
      (window as unknown as { __renderRaw(html: string): void }).__renderRaw('<p class="evil md-raw">ok <strong>bold</strong></p>'),
    );
    assert.equal(await p.page.locator('#root > .md').last().innerHTML(), '<p class="md-raw">ok <strong>bold</strong></p>');
    await poke(p);
    await assertInert(p);
    const probe = await p.probe();
    assert.equal(probe.xss, undefined);
    assert.deepEqual(p.dialogs, []);
    assert.deepEqual(probe.unexpectedPostMessage, []);
    assert.deepEqual(p.unexpectedRequests(), []);
    // DOMPurify parses the dirty HTML with DOMParser; Chromium reports the inline handlers and
    // styles it meets there as CSP violations even though that document is inert. Recorded, and
    // checked to be only that: nothing tried to load anything.
    const counts = new Map<string, number>();
    for (const v of probe.csp) counts.set(v.directive, (counts.get(v.directive) ?? 0) + 1);
    const summary = [...counts].map(([d, n]) => `${d} ×${n}`);
    t.diagnostic(`raw HTML layer: ${probe.csp.length} CSP violation(s) while DOMPurify parsed the payloads (${summary.join(', ')})`);
    assert.ok(
      probe.csp.every((v) => v.blockedURI === 'inline' && /^(script|style)-src-(attr|elem)$/.test(v.directive)),
      JSON.stringify(probe.csp),
    );
  });

  test('screenshots of a rendered conversation in dark and light themes', async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    for (const theme of ['dark', 'light'] as const) {
      const p = await openWith(
        richConversation(),
        { busy: true, context: meter(131_500, 200_000, 160_000) },
        { theme, width: 440, height: 1200 },
      );
      await p.page.locator('article.card').filter({ hasText: 'edit_file' }).locator('.card-header').click();
      await p.page.locator('.thinking-toggle').click();
      await p.page.getByRole('textbox', { name: 'Message' }).fill('Also add a benchmark for the cache hit rate');
      await p.page.locator('body').click({ position: { x: 2, y: 2 } });
      const jump = p.page.getByRole('button', { name: /Jump to latest/ });
      if (await jump.count()) await jump.click();
      await p.settle();
      await p.page.screenshot({ path: join(ARTIFACTS, `chat-${theme}.png`), animations: 'disabled' });
      const bg = await p.page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
      assert.equal(bg, theme === 'dark' ? 'rgb(24, 24, 24)' : 'rgb(248, 248, 248)');
      await assertClean(p);
    }
  });
});

function chunks(s: string, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
}

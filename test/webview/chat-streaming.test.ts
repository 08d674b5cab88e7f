// Streaming into the chat view in headless Chromium, driven by HostToChat messages exactly as the host
// sends them, with the page's real CSP: a conversation streamed as state, items and deltas renders its
// markdown and re-renders only the streaming item; deltas and items apply in order; a long
// conversation renders quickly and keeps up with thousands of deltas, following the stream unless
// the reader scrolled up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatItem, HostToChat } from '../../src/protocol';
import { chatState, ANSWER_MD } from './fixtures';
import type { TestWindow } from './harness';
import { assertClean, chatPagesForFile, chunks } from './chat-support';

const { open } = chatPagesForFile();

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

// Very deep markdown (issue 12, item 17) through the real renderer (marked + DOMPurify) in headless
// Chromium: 3,000 nested quotes or list items threw a RangeError in marked and the message rendered
// blank. Now nesting is bounded: what comes before the too-deep line renders as markdown, the rest is
// shown as plain text (nothing lost), and an error marker says so. Ordinary nesting is untouched.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MARKDOWN_MAX_NESTING } from '../../webview/shared/markdown';
import { WebviewHarness, type WebviewPage } from './harness';

interface Rendered {
  threw: string | null;
  html: string;
  text: string;
  errorMarkers: number;
  plain: string;
  maxDepth: number;
}

/** Renders `md` with the page's renderMarkdown and reports what the mounted `.md` element holds. */
async function render(p: WebviewPage, md: string): Promise<Rendered> {
  return p.page.evaluate((text) => {
    const root = document.getElementById('root')!;
    root.replaceChildren();
    let threw: string | null = null;
    try {
      (window as unknown as { __renderMarkdown(md: string): void }).__renderMarkdown(text);
    } catch (e) {
      threw = String(e);
    }
    const md = root.querySelector('.md');
    let maxDepth = 0;
    for (const el of md?.querySelectorAll('*') ?? []) {
      let d = 0;
      for (let n: Element | null = el; n && n !== md; n = n.parentElement) if (/^(BLOCKQUOTE|UL|OL)$/.test(n.tagName)) d++;
      maxDepth = Math.max(maxDepth, d);
    }
    return {
      threw,
      html: md?.innerHTML.slice(0, 2000) ?? '',
      text: md?.textContent ?? '',
      errorMarkers: md?.querySelectorAll('.md-error').length ?? 0,
      plain: [...(md?.querySelectorAll('pre.md-plain') ?? [])].map((e) => e.textContent).join(''),
      maxDepth,
    };
  }, md);
}

describe('markdown nesting bound', () => {
  let h: WebviewHarness;
  let p: WebviewPage;
  before(async () => {
    h = await WebviewHarness.start();
    p = await h.open({ page: 'sanitize' });
  });
  after(async () => {
    await h?.close();
  });

  const deep: Array<[string, string]> = [
    ['3,000 nested quotes', '> '.repeat(3000) + 'deep end'],
    ['3,000 nested quotes without spaces', '>'.repeat(3000) + 'deep end'],
    ['3,000 nested bullet items', '- '.repeat(3000) + 'deep end'],
    ['3,000 nested ordered items', '1. '.repeat(3000) + 'deep end'],
    ['2,000 quote-and-list levels', '> - '.repeat(2000) + 'deep end'],
    // (600 and 400 levels: deeper, these two would pass MARKDOWN_MAX_CHARS and be shown as plain text whole)
    ['600 lines each one quote deeper', Array.from({ length: 600 }, (_, i) => '>'.repeat(i + 1) + ' line').join('\n') + '\ndeep end'],
    ['400 list levels by indentation', Array.from({ length: 400 }, (_, i) => ' '.repeat(i * 2) + '- item').join('\n') + '\ndeep end'],
  ];
  for (const [name, md] of deep) {
    test(`${name}: no exception, an error marker, the nesting bounded and the deep text shown as plain text`, async () => {
      const r = await render(p, `Intro **bold**\n\n${md}`);
      assert.equal(r.threw, null);
      assert.equal(r.errorMarkers, 1, r.html);
      assert.ok(r.maxDepth <= MARKDOWN_MAX_NESTING, `nesting ${r.maxDepth}`);
      assert.match(r.html, /<strong>bold<\/strong>/, 'what comes before still renders as markdown');
      assert.match(r.plain, /deep end/, 'the rest is shown, as text');
      assert.deepEqual(p.pageErrors, []);
    });
  }

  test(`nesting up to ${MARKDOWN_MAX_NESTING} levels renders as markdown with no marker`, async () => {
    const r = await render(p, '> '.repeat(MARKDOWN_MAX_NESTING) + 'quoted\n\n' + '- '.repeat(10) + 'listed');
    assert.equal(r.threw, null);
    assert.equal(r.errorMarkers, 0, r.html);
    assert.equal(r.plain, '');
    assert.ok(r.maxDepth >= MARKDOWN_MAX_NESTING, `nesting ${r.maxDepth}`);
    assert.match(r.text, /quoted/);
  });

  test('deep-looking lines inside a fenced code block are code, not nesting', async () => {
    const r = await render(p, '```\n' + '> '.repeat(500) + 'not a quote\n```\n\nafter');
    assert.equal(r.threw, null);
    assert.equal(r.errorMarkers, 0, r.html);
    assert.match(r.html, /<pre class="md-code">/);
    assert.match(r.text, /after/);
  });
});

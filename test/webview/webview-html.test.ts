// The HTML shell every webview is served in (src/extension/webviewHtml.ts), without a browser: its
// Content-Security-Policy, no inline script or style, and the nonce and cspSource it accepts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildWebviewHtml, makeNonce, webviewCsp } from '../../src/extension/webviewHtml';

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

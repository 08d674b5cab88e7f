// The HTML shell of both webviews. A pure function (no `vscode` import) so it can be unit-tested and
// served by the headless-browser harness exactly as VS Code serves it.
//
// Security model: scripts run only from our bundle, identified by a per-load nonce; styles, fonts
// and images only from the extension's own resources (images also from data: URIs). No inline
// script and no inline style attribute is ever needed (Preact sets styles through the CSSOM, which
// CSP does not govern). Everything the model writes is sanitized before it reaches the DOM; this
// policy is the second line of defence.

export interface WebviewHtmlOptions {
  /** webview.asWebviewUri(...) of the bundle. */
  scriptUri: string;
  /** Stylesheets, in order. */
  styleUris: readonly string[];
  /** webview.cspSource. */
  cspSource: string;
  /** A fresh value from makeNonce() per HTML load. */
  nonce: string;
  title: string;
}

/** The Content-Security-Policy of a webview page. */
export function webviewCsp(cspSource: string, nonce: string): string {
  return [
    `default-src 'none'`,
    `img-src ${cspSource} data:`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    // Not covered by default-src: keep model output from redirecting relative URLs or submitting forms.
    `base-uri 'none'`,
    `form-action 'none'`,
  ].join('; ');
}

export function buildWebviewHtml(o: WebviewHtmlOptions): string {
  if (!/^[A-Za-z0-9+/_-]{16,}={0,2}$/.test(o.nonce)) throw new Error('buildWebviewHtml: the nonce must be at least 16 base64 characters');
  // cspSource is a source expression list such as `https://*.vscode-cdn.net`; it must not be able to
  // end the directive or the attribute.
  if (/[;,"<>\r\n]/.test(o.cspSource) || o.cspSource.trim() === '') throw new Error('buildWebviewHtml: invalid cspSource');
  const csp = webviewCsp(o.cspSource.trim(), o.nonce);
  const styles = o.styleUris.map((u) => `    <link rel="stylesheet" href="${escapeAttr(u)}">`).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
${styles}
    <title>${escapeText(o.title)}</title>
  </head>
  <body>
    <div id="root"></div>
    <script nonce="${escapeAttr(o.nonce)}" src="${escapeAttr(o.scriptUri)}"></script>
  </body>
</html>
`;
}

/** 32 random characters (192 bits) from [A-Za-z0-9], for a CSP nonce. */
export function makeNonce(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = new Uint8Array(32);
  globalThis.crypto.getRandomValues(bytes);
  let out = '';
  // 248 = 4 * 62: reject bytes above it so every character is equally likely.
  for (let i = 0; out.length < 32; i++) {
    if (i === bytes.length) {
      globalThis.crypto.getRandomValues(bytes);
      i = 0;
    }
    const b = bytes[i]!;
    if (b < 248) out += alphabet[b % 62];
  }
  return out;
}

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

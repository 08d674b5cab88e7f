// Hostile model output. Every payload, if it ever ran, would set `window.__xss` to its number, open
// a dialog, post a message, navigate, or make a request that the harness sees. The page's CSP
// blocks inline script on its own, so the tests also check the sanitized DOM structurally: the
// defence must hold even without CSP.

export interface Payload {
  n: number;
  name: string;
  text: string;
}

const raw: Array<[string, string]> = [
  ['script tag', '<script>window.__xss=1</script>'],
  ['img onerror', '<img src=x onerror="window.__xss=2">'],
  ['svg onload', '<svg onload="window.__xss=3"></svg>'],
  ['script inside svg', '<svg><script>window.__xss=4</script></svg>'],
  ['markdown javascript: link', '[click me](javascript:window.__xss=5)'],
  ['markdown mixed-case JaVaScRiPt: link', '[click me](JaVaScRiPt:window.__xss=6)'],
  ['html javascript: link', '<a href="javascript:window.__xss=7">x</a>'],
  ['iframe srcdoc', '<iframe srcdoc="<script>parent.__xss=8</script>"></iframe>'],
  ['iframe javascript: src', '<iframe src="javascript:parent.__xss=9"></iframe>'],
  ['object data', '<object data="javascript:window.__xss=10"></object>'],
  ['embed data:text/html', '<embed src="data:text/html,<script>parent.__xss=11</script>">'],
  [
    'form action with autofocus input',
    '<form action="javascript:window.__xss=12"><input autofocus onfocus="window.__xss=12"><button>go</button></form>',
  ],
  ['meta refresh', '<meta http-equiv="refresh" content="0;url=javascript:window.__xss=13">'],
  ['base href', '<base href="javascript:window.__xss=14//"><a href="x">relative</a>'],
  ['CSS url(javascript:)', '<div style="background:url(javascript:window.__xss=15)">styled</div>'],
  ['CSS expression()', '<div style="width: expression(window.__xss=16)">expr</div>'],
  ['style tag with @import and url', '<style>@import "/leak17.css"; body { background: url("/leak17.png") }</style>'],
  ['markdown image javascript:', '![img](javascript:window.__xss=18)'],
  ['markdown link data:text/html', '[x](data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX194c3M9MTk8L3NjcmlwdD4=)'],
  ['markdown image data:text/html', '![x](data:text/html,<script>parent.__xss=20</script>)'],
  ['entity-encoded javascript: href', '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;window.__xss=21">entity</a>'],
  ['entity-obfuscated markdown link', '[entity](&#x6A;avascript:window.__xss=22)'],
  ['mXSS noscript title', '<noscript><p title="</noscript><img src=x onerror=window.__xss=23>">'],
  ['mXSS svg style', '<svg><style><img src=x onerror=window.__xss=24></style></svg>'],
  ['template content', '<template><img src=x onerror=window.__xss=25></template>'],
  ['mXSS math mglyph', '<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=26></style></mglyph></table></mtext></math>'],
  [
    'DOM clobbering names',
    '<form id="acquireVsCodeApi"></form><img name="getState"><img name="postMessage"><form name="__vscodeTest"></form><a id="root">x</a>',
  ],
  ['calls acquireVsCodeApi().postMessage', '<img src=x onerror="acquireVsCodeApi().postMessage({type:\'newChat\'});window.__xss=28">'],
  [
    'calls window.parent.postMessage',
    "<img src=x onerror=\"window.parent.postMessage({type:'delta',id:'a',text:'pwned'},'*');window.__xss=29\">",
  ],
  ['details ontoggle', '<details open ontoggle="window.__xss=30"><summary>s</summary>d</details>'],
  ['video source onerror', '<video><source onerror="window.__xss=31"></video>'],
  ['body onload', '<body onload="window.__xss=32">'],
  ['anchor onclick (clicked)', '<a href="#" onclick="window.__xss=33">click me</a>'],
  ['same-origin img leak', '<img src="/leak34.png">'],
  ['markdown same-origin image', '![pixel](/leak35.png)'],
  ['markdown remote image', '![pixel](https://evil.example/leak36.png)'],
  ['stylesheet link', '<link rel="stylesheet" href="/leak37.css">'],
  ['svg xlink:href javascript:', '<svg><a xlink:href="javascript:window.__xss=38"><text x="20" y="20">x</text></a></svg>'],
  ['tab inside javascript:', '<a href="javas&#x09;cript:window.__xss=39">tab</a>'],
  ['angle-bracket markdown link', '[a](<javascript:window.__xss=40>)'],
  ['iframe data:text/html', '<iframe src="data:text/html,<script>parent.__xss=41</script>"></iframe>'],
  ['html in inline code', '`<img src=x onerror=window.__xss=42>`'],
  ['html in fenced code', '```html\n<script>window.__xss=43</script>\n```'],
  ['svg data: image', "<img src=\"data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' onload='parent.__xss=44'/>\">"],
  ['marquee onstart', '<marquee onstart="window.__xss=45">m</marquee>'],
  ['select autofocus onfocus', '<select autofocus onfocus="window.__xss=46"></select>'],
  ['custom element onclick', '<x-foo onclick="window.__xss=47">custom</x-foo>'],
  ['split script tag', '<scr<script>ipt>window.__xss=48</scr</script>ipt>'],
  ['eval(src) trick', '<img src="x:window.__xss=49" onerror="eval(src)">'],
  ['textarea breakout', '<textarea></textarea><img src=x onerror=window.__xss=50>'],
  ['markdown link with title breakout', '[x](https://ok.example "a\\" onmouseover=\\"window.__xss=51")'],
  ['reference-style javascript: link', '[ref][r]\n\n[r]: javascript:window.__xss=52'],
  ['autolink javascript:', '<javascript:window.__xss=53>'],
  ['formaction button', '<button formaction="javascript:window.__xss=54">b</button>'],
  ['srcset leak', '<img srcset="/leak55.png 1x">'],
  ['object with same-origin data', '<object data="/leak56.html"></object>'],
  ['background attribute', '<table background="/leak57.png"><tr><td>t</td></tr></table>'],
  ['audio onerror', '<audio src=x onerror="window.__xss=58"></audio>'],
];

export const XSS_PAYLOADS: Payload[] = raw.map(([name, text], i) => ({ n: i + 1, name, text }));

/** The whole corpus as one markdown document (payloads separated by blank lines). */
export const XSS_DOCUMENT = XSS_PAYLOADS.map((p) => `Payload ${p.n} (${p.name}):\n\n${p.text}`).join('\n\n');

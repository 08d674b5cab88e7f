// Markdown from the model -> a sanitized DOM fragment.
//
// Model output is untrusted (prompt injection can make it say anything), so it goes through two
// independent layers:
//  1. marked renders with our renderer: raw HTML in the markdown is shown as text (escaped), links
//     become text with their address shown (nothing is clickable), images render only when they are
//     raster data: URIs, code is escaped.
//  2. DOMPurify with a small allowlist (no links, no forms, no frames, no SVG/MathML, no style, no
//     event handlers, no ids or names, classes only from our own vocabulary, img src only raster
//     data: URIs) sanitizes whatever layer 1 produced, and returns a DOM fragment that is inserted as
//     is (no serialize-and-reparse step).
// The page's CSP (no inline script, no remote loads) is the third.
import { Marked, type Tokens } from 'marked';
import createDOMPurify, { type Config, type DOMPurify } from 'dompurify';

/** Text longer than this is shown as plain text rather than parsed as markdown. */
export const MARKDOWN_MAX_CHARS = 200_000;

/**
 * Deepest nesting of quotes and lists rendered as markdown. marked descends recursively into every
 * level: 3,000 nested `>` overflow its stack (RangeError), and thousands of lines each one level deeper
 * take it minutes and gigabytes. From the first line deeper than this, the text is shown as plain text.
 */
export const MARKDOWN_MAX_NESTING = 40;

const RASTER_DATA_URI = /^data:image\/(?:png|gif|jpe?g|webp);base64,[A-Za-z0-9+/]+={0,2}$/;
const SAFE_LANG = /^[A-Za-z0-9_+#.-]{1,32}$/;
const SAFE_CLASS = /^(?:md-[a-z-]+|language-[A-Za-z0-9_+#.-]{1,32})$/;

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML written by the model is shown, not interpreted.
    html({ text, block }: Tokens.HTML | Tokens.Tag): string {
      return block ? `<p class="md-raw">${escapeHtml(text)}</p>\n` : escapeHtml(text);
    },
    // Links open nothing: the label, then the address as text.
    link({ href, tokens }: Tokens.Link): string {
      const label = this.parser.parseInline(tokens);
      const plainLabel = tokens.map((t) => ('text' in t ? t.text : '')).join('');
      const showHref = href && href !== plainLabel && `mailto:${plainLabel}` !== href;
      return `<span class="md-link">${label}</span>${showHref ? ` <span class="md-href">&lt;${escapeHtml(href)}&gt;</span>` : ''}`;
    },
    image({ href, text, title }: Tokens.Image): string {
      if (RASTER_DATA_URI.test(href)) {
        return `<img class="md-img" src="${escapeHtml(href)}" alt="${escapeHtml(text)}"${title ? ` title="${escapeHtml(title)}"` : ''}>`;
      }
      const where = href.startsWith('data:') ? 'data URI' : href;
      return `<span class="md-image">[image: ${escapeHtml(text || 'untitled')}] <span class="md-href">&lt;${escapeHtml(where.slice(0, 300))}&gt;</span></span>`;
    },
    code({ text, lang, escaped }: Tokens.Code): string {
      const first = (lang ?? '').trim().split(/\s+/)[0] ?? '';
      const cls = SAFE_LANG.test(first) ? ` class="language-${first}"` : '';
      return `<pre class="md-code"><code${cls}>${escaped ? text : escapeHtml(text)}</code></pre>\n`;
    },
    checkbox({ checked }: Tokens.Checkbox): string {
      return `<span class="md-check">${checked ? '☑' : '☐'}</span> `;
    },
  },
});

const ALLOWED_TAGS = [
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
];
const ALLOWED_ATTR = ['class', 'title', 'alt', 'src', 'start', 'align'];

const config: Config & { RETURN_DOM_FRAGMENT: true } = {
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  ALLOWED_URI_REGEXP: RASTER_DATA_URI,
  ALLOW_SELF_CLOSE_IN_ATTR: false,
  SAFE_FOR_TEMPLATES: false,
  WHOLE_DOCUMENT: false,
  RETURN_DOM_FRAGMENT: true,
};

let purifier: DOMPurify | undefined;

function getPurifier(): DOMPurify {
  if (purifier) return purifier;
  // A private instance: our hooks must not leak into anyone else's DOMPurify.
  const p = createDOMPurify(window);
  p.addHook('uponSanitizeAttribute', (node, data) => {
    if (data.attrName === 'class') {
      const kept = data.attrValue.split(/\s+/).filter((c) => SAFE_CLASS.test(c));
      if (kept.length === 0) data.keepAttr = false;
      else data.attrValue = kept.join(' ');
    } else if (data.attrName === 'src') {
      // DOMPurify accepts any data: URI on <img>; we accept only raster images.
      if (node.nodeName !== 'IMG' || !RASTER_DATA_URI.test(data.attrValue)) data.keepAttr = false;
    } else if (data.attrName === 'start') {
      if (!/^\d{1,9}$/.test(data.attrValue)) data.keepAttr = false;
    } else if (data.attrName === 'align') {
      if (!/^(?:left|right|center)$/.test(data.attrValue)) data.keepAttr = false;
    }
  });
  p.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'IMG' && !(node as Element).hasAttribute('src')) (node as Element).remove();
  });
  purifier = p;
  return p;
}

/** Sanitizes an HTML string into a fragment (layer 2 alone; exported for tests and other views). */
export function sanitizeHtml(html: string): DocumentFragment {
  return getPurifier().sanitize(html, config);
}

/** A fence that opens or closes a fenced code block (CommonMark: up to 3 spaces, 3+ backticks or tildes). */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** One container marker at the start of a line: a quote `>`, a bullet, or an ordered-list number. */
const CONTAINER_MARKER = /[ \t]*(?:>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$))/y;

/** How deeply `line` nests quotes and lists: its markers, plus its indentation when it opens a list item. */
function lineNesting(line: string): number {
  let markers = 0;
  CONTAINER_MARKER.lastIndex = 0;
  while (markers <= MARKDOWN_MAX_NESTING && CONTAINER_MARKER.exec(line)) markers++;
  if (markers === 0) return 0;
  let indent = 0;
  for (let i = 0; i < line.length && (line[i] === ' ' || line[i] === '\t'); i++) indent += line[i] === '\t' ? 4 : 1;
  return markers + Math.floor(indent / 2);
}

/** Offset of the first line (outside fenced code) nested deeper than MARKDOWN_MAX_NESTING, or -1. */
export function firstTooDeepLine(text: string): number {
  let offset = 0;
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const f = FENCE.exec(line);
    if (fence !== undefined) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length && line.trim() === f[1]) fence = undefined;
    } else if (f) {
      fence = f[1];
    } else if (lineNesting(line) > MARKDOWN_MAX_NESTING) {
      return offset;
    }
    offset += line.length + 1;
  }
  return -1;
}

function plainText(text: string): HTMLPreElement {
  const pre = document.createElement('pre');
  pre.className = 'md-plain';
  pre.textContent = text;
  return pre;
}

/** A visible note that part of a message is not shown as markdown, and why. */
function errorMarker(why: string): HTMLParagraphElement {
  const p = document.createElement('p');
  p.className = 'md-error';
  p.setAttribute('role', 'note');
  p.textContent = `⚠ ${why}`;
  return p;
}

/** Markdown (bounded, see renderMarkdown) -> sanitized fragment, with a copy button on every code block. */
function markdownFragment(text: string): DocumentFragment {
  const html = marked.parse(text, { async: false }) as string;
  const frag = sanitizeHtml(html);
  for (const pre of frag.querySelectorAll('pre.md-code')) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'md-copy';
    button.textContent = 'Copy';
    button.setAttribute('aria-label', 'Copy code');
    pre.prepend(button);
  }
  return frag;
}

/**
 * Markdown -> sanitized fragment. Never throws and never loses text: text over MARKDOWN_MAX_CHARS is
 * plain text; from the first line nested deeper than MARKDOWN_MAX_NESTING the rest is plain text after
 * an error marker; if the markdown layer fails anyway, the whole text is plain text after a marker.
 */
export function renderMarkdown(text: string): DocumentFragment {
  if (text.length > MARKDOWN_MAX_CHARS) {
    const frag = document.createDocumentFragment();
    frag.append(plainText(text));
    return frag;
  }
  const cut = firstTooDeepLine(text);
  try {
    const frag = markdownFragment(cut === -1 ? text : text.slice(0, cut));
    if (cut !== -1) {
      frag.append(
        errorMarker(`Markdown nested more than ${MARKDOWN_MAX_NESTING} levels deep: the rest of this message is shown as plain text.`),
        plainText(text.slice(cut)),
      );
    }
    return frag;
  } catch (e) {
    const frag = document.createDocumentFragment();
    const why = e instanceof Error ? e.name : 'error';
    frag.append(errorMarker(`This message could not be rendered as markdown (${why}): it is shown as plain text.`), plainText(text));
    return frag;
  }
}

// Finished messages are rendered once and cloned afterwards (e.g. when 'state' replaces the items
// with equal copies after a restore): parsing hundreds of messages again would stall the view.
const cache = new Map<string, DocumentFragment>();
const CACHE_MAX = 400;

export function renderMarkdownCached(text: string): DocumentFragment {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit.cloneNode(true) as DocumentFragment;
  }
  const frag = renderMarkdown(text);
  if (text.length <= 100_000) {
    cache.set(text, frag.cloneNode(true) as DocumentFragment);
    if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value as string);
  }
  return frag;
}

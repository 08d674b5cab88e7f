// Text helpers shared by probe generation and scoring: the normalisation an expected answer and the
// text it is looked for in both go through (case, whitespace, quotes and backticks), the stable hash
// of a probe id, and the folder a session's absolute paths share (a summary names files relative to it).
import { commonFolder } from '../replay/recall';

/** Lower case, quotes and backticks stripped, whitespace collapsed: how expected answers and request text are compared. */
export function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`'"\u2018\u2019\u201c\u201d]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** FNV-1a, 32 bits, as 8 hex digits: a stable short hash for probe ids. */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

export { clip, oneLine } from '../ledger/ledgerExtract';

export { commonFolder };

/** The forms an expected answer may take in text: itself, and a path relative to the session's common folder. */
export function answerForms(expected: string, root: string): string[] {
  const forms = [normalise(expected)];
  if (root !== '' && expected.startsWith(root) && expected.length > root.length) forms.push(normalise(expected.slice(root.length)));
  return forms.filter((f) => f !== '');
}

/** Whether normalised `haystack` holds `expected` (in full, or relative to `root`). */
export function holds(haystack: string, expected: string, root: string): boolean {
  return answerForms(expected, root).some((f) => haystack.includes(f));
}

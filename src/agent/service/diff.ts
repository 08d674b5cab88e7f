// Line diffs for approval prompts: Myers' O((N+M)·D) algorithm on lines, after trimming the common
// prefix and suffix (most edits touch a few lines of a large file), rendered as a unified diff.
// Pure functions, no dependencies.

export type DiffOp = 'equal' | 'delete' | 'insert';

export interface DiffEdit {
  op: DiffOp;
  /** The line, including its terminator ('\n' or '\r\n'; none on a last line without one). */
  line: string;
}

export interface UnifiedDiffOptions {
  /** Label of the old side (default 'a'); '/dev/null' for a new file. */
  oldPath?: string;
  /** Label of the new side (default 'b'). */
  newPath?: string;
  /** Unchanged lines shown around each change (default 3). */
  context?: number;
}

export interface DiffStats {
  added: number;
  removed: number;
}

/** Above this many differences the middle is reported as one block replacement (bounded memory). */
export const MAX_EDIT_DISTANCE = 2_000;

/** Split text into lines that keep their terminators, so "no newline at end" is a difference too. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl === -1) {
      if (start < text.length) lines.push(text.slice(start));
      return lines;
    }
    lines.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
}

/** The shortest edit script turning `a` into `b` (lines compared exactly). */
export function diffLines(a: readonly string[], b: readonly string[]): DiffEdit[] {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const head: DiffEdit[] = a.slice(0, prefix).map((line) => ({ op: 'equal', line }));
  const tail: DiffEdit[] = a.slice(a.length - suffix).map((line) => ({ op: 'equal', line }));
  const middle = myers(a.slice(prefix, a.length - suffix), b.slice(prefix, b.length - suffix));
  return [...head, ...middle, ...tail];
}

function myers(a: readonly string[], b: readonly string[]): DiffEdit[] {
  const n = a.length;
  const m = b.length;
  if (n === 0) return b.map((line) => ({ op: 'insert', line }));
  if (m === 0) return a.map((line) => ({ op: 'delete', line }));
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  // trace[d] holds v[-d..d] as it was before step d (only what backtracking reads).
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max; d++) {
    if (d > MAX_EDIT_DISTANCE) break;
    trace.push(v.slice(offset - d, offset + d + 1));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    if (found >= 0) break;
  }
  if (found < 0) {
    // Too different to diff cheaply: one block replacement is still a correct (if long) diff.
    return [...a.map((line): DiffEdit => ({ op: 'delete', line })), ...b.map((line): DiffEdit => ({ op: 'insert', line }))];
  }

  const out: DiffEdit[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const prev = trace[d];
    const get = (k: number) => prev[k + d];
    const k = x - y;
    const prevK = k === -d || (k !== d && get(k - 1) < get(k + 1)) ? k + 1 : k - 1;
    const prevX = get(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      out.push({ op: 'equal', line: a[x - 1] });
      x--;
      y--;
    }
    if (x === prevX) {
      out.push({ op: 'insert', line: b[y - 1] });
      y--;
    } else {
      out.push({ op: 'delete', line: a[x - 1] });
      x--;
    }
  }
  while (x > 0 && y > 0) {
    out.push({ op: 'equal', line: a[x - 1] });
    x--;
    y--;
  }
  return out.reverse();
}

/** Lines added and removed between two texts. */
export function diffStats(oldText: string, newText: string): DiffStats {
  const edits = diffLines(splitLines(oldText), splitLines(newText));
  return { added: edits.filter((e) => e.op === 'insert').length, removed: edits.filter((e) => e.op === 'delete').length };
}

/**
 * A unified diff (`---`/`+++` headers, `@@ -l,s +l,s @@` hunks) of two texts; '' when they are equal.
 * Lines without a final newline are followed by "\ No newline at end of file", as diff(1) does.
 */
export function unifiedDiff(oldText: string, newText: string, options: UnifiedDiffOptions = {}): string {
  if (oldText === newText) return '';
  const context = Math.max(0, options.context ?? 3);
  const edits = diffLines(splitLines(oldText), splitLines(newText));

  // Line numbers (1-based) of each edit on both sides.
  const oldNo: number[] = [];
  const newNo: number[] = [];
  let o = 1;
  let nn = 1;
  for (const e of edits) {
    oldNo.push(o);
    newNo.push(nn);
    if (e.op !== 'insert') o++;
    if (e.op !== 'delete') nn++;
  }

  const changes: number[] = [];
  edits.forEach((e, i) => {
    if (e.op !== 'equal') changes.push(i);
  });
  if (changes.length === 0) return '';

  // Group changes whose gap of unchanged lines is small enough to share context.
  const groups: Array<[number, number]> = [];
  let start = changes[0];
  let end = changes[0];
  for (const i of changes.slice(1)) {
    if (i - end - 1 <= 2 * context) end = i;
    else {
      groups.push([start, end]);
      start = end = i;
    }
  }
  groups.push([start, end]);

  const lines: string[] = [`--- ${options.oldPath ?? 'a'}`, `+++ ${options.newPath ?? 'b'}`];
  for (const [first, last] of groups) {
    const from = Math.max(0, first - context);
    const to = Math.min(edits.length - 1, last + context);
    let oldCount = 0;
    let newCount = 0;
    for (let i = from; i <= to; i++) {
      if (edits[i].op !== 'insert') oldCount++;
      if (edits[i].op !== 'delete') newCount++;
    }
    // diff(1) numbers an empty side by the line before it.
    const oldStart = oldCount === 0 ? oldNo[from] - 1 : oldNo[from];
    const newStart = newCount === 0 ? newNo[from] - 1 : newNo[from];
    lines.push(`@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@`);
    for (let i = from; i <= to; i++) {
      const e = edits[i];
      const mark = e.op === 'equal' ? ' ' : e.op === 'delete' ? '-' : '+';
      const hasNewline = e.line.endsWith('\n');
      lines.push(mark + e.line.replace(/\r?\n$/, ''));
      if (!hasNewline) lines.push('\\ No newline at end of file');
    }
  }
  return lines.join('\n') + '\n';
}

function range(start: number, count: number): string {
  return count === 1 ? `${start}` : `${start},${count}`;
}

// The line diff behind every approval of an edit or a write: a minimal edit script, unified hunks
// (with missing final newlines), and linear time on large files with a small change.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { diffLines, splitLines, unifiedDiff } from '../../src/agent/service/diff';

describe('diff', () => {
  function apply(a: string[], edits: ReturnType<typeof diffLines>): { from: string[]; to: string[] } {
    return {
      from: edits.filter((e) => e.op !== 'insert').map((e) => e.line),
      to: edits.filter((e) => e.op !== 'delete').map((e) => e.line),
    };
  }

  test('the edit script reproduces both sides and is minimal on random inputs', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let n = 0; n < 300; n++) {
      const a = Array.from({ length: Math.floor(rand() * 12) }, () => `${'abc'[Math.floor(rand() * 3)]}\n`);
      const b = Array.from({ length: Math.floor(rand() * 12) }, () => `${'abc'[Math.floor(rand() * 3)]}\n`);
      const edits = diffLines(a, b);
      assert.deepEqual(apply(a, edits), { from: a, to: b });
      // Minimal: changes = |a| + |b| - 2·LCS.
      const lcs = lcsLength(a, b);
      assert.equal(edits.filter((e) => e.op !== 'equal').length, a.length + b.length - 2 * lcs);
    }
  });

  test('unified diff separates distant hunks and handles a missing final newline', () => {
    const oldText = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const newText = oldText.replace('line 2\n', 'LINE 2\n').replace('line 19\n', 'LINE 19\n');
    const d = unifiedDiff(oldText, newText, { oldPath: 'a/f', newPath: 'b/f' });
    assert.equal((d.match(/^@@ /gm) ?? []).length, 2);
    assert.match(d, /@@ -1,5 \+1,5 @@\n line 1\n-line 2\n\+LINE 2\n line 3\n/);
    assert.match(d, /@@ -16,5 \+16,5 @@\n line 16\n line 17\n line 18\n-line 19\n\+LINE 19\n line 20\n$/);
    assert.equal(unifiedDiff('x\n', 'x\n'), '');
    assert.equal(unifiedDiff('a\nb', 'a\nb\n'), '--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n');
    assert.equal(unifiedDiff('gone\n', ''), '--- a\n+++ b\n@@ -1 +0,0 @@\n-gone\n');
    assert.deepEqual(splitLines('a\r\nb'), ['a\r\n', 'b']);
  });

  test('large files with a small change diff quickly', () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `row ${i}`);
    const started = Date.now();
    const d = unifiedDiff(lines.join('\n'), lines.map((l, i) => (i === 50_000 ? 'changed' : l)).join('\n'));
    assert.ok(Date.now() - started < 5000, 'linear in the file size, not quadratic');
    assert.match(d, /-row 50000\n\+changed/);
  });
});

function lcsLength(a: string[], b: string[]): number {
  const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) dp[i][j] = a[i - 1] === b[j - 1] ? dp[i - 1][j - 1] + 1 : Math.max(dp[i - 1][j], dp[i][j - 1]);
  }
  return dp[a.length][b.length];
}

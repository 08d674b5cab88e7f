// The approval card's visible escaping: bidi controls and invisible characters become <U+XXXX>.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeInvisible } from '../../webview/chat/invisible';

test('bidi controls, zero-width and other format/control characters are escaped; text, \\n and \\t are not', () => {
  const bidi = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C'];
  const zero = ['\u200B', '\u200C', '\u200D', '\uFEFF', '\u2060', '\u00AD', '\u{E0041}', '\u2028', '\u2029'];
  const control = ['\u0000', '\u0007', '\u001B', '\u007F', '\u0085', '\r'];
  for (const ch of [...bidi, ...zero, ...control]) {
    const { text, found } = escapeInvisible(`a${ch}b`);
    const hex = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    assert.equal(text, `a<U+${hex}>b`, `U+${hex}`);
    assert.equal(found, 1);
  }
  const plain = 'ls -la | grep "é 中文 😀"\n\tdone';
  assert.deepEqual(escapeInvisible(plain), { text: plain, found: 0 });
  assert.deepEqual(escapeInvisible('a\r\nb', { keepCR: true }), { text: 'a\r\nb', found: 0 });
});

test('the Trojan Source command reads as what runs', () => {
  const cmd = 'echo listing \u202E; touch pwned # \u2066 list files';
  const { text, found } = escapeInvisible(cmd);
  assert.equal(text, 'echo listing <U+202E>; touch pwned # <U+2066> list files');
  assert.equal(found, 2);
});

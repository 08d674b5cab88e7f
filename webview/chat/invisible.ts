// Visible escaping for what the user approves: bidirectional controls (U+202A-202E, U+2066-2069,
// U+200E/200F, U+061C), zero-width and other format characters (Unicode Cf: U+200B-200D, U+FEFF,
// U+2060-2064, U+00AD, tags…), line/paragraph separators and control characters other than \n and
// \t become `<U+XXXX>`, so a command reads as what runs ("Trojan Source").

const INVISIBLE = /[\p{Cf}\p{Cc}\p{Zl}\p{Zp}]/gu;

export function escapeInvisible(text: string, opts: { keepCR?: boolean } = {}): { text: string; found: number } {
  let found = 0;
  const escaped = text.replace(INVISIBLE, (ch) => {
    if (ch === '\n' || ch === '\t' || (opts.keepCR && ch === '\r')) return ch;
    found++;
    return `<U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`;
  });
  return { text: escaped, found };
}

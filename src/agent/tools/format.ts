// Text shaping for tool output: sizes, capped listings, one-line titles.

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** Keep whole lines up to `maxBytes`, then say how many were left out. */
export function capLines(lines: string[], maxBytes: number, what: string): string[] {
  let bytes = 0;
  for (let i = 0; i < lines.length; i++) {
    bytes += Buffer.byteLength(lines[i]) + 1;
    if (bytes > maxBytes && i > 0)
      return [...lines.slice(0, i), `[Output capped at ${formatBytes(maxBytes)}: ${lines.length - i} more ${what} not shown.]`];
  }
  return lines;
}

/** A command line shortened to one line for an approval title; invisible and bidi characters shown as <U+XXXX>. */
export function oneLine(s: string): string {
  const line = s
    .replace(/\s*\n\s*/g, ' ⏎ ')
    .replace(/[\p{Cf}\p{Cc}\p{Zl}\p{Zp}]/gu, (ch) =>
      ch === '\t' ? ch : `<U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`,
    );
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

// What the CLI prints must not drive the terminal. A session file is data from anywhere: an ESC or OSC
// sequence in a message, an id, a model name or a file name could retitle the terminal, move the cursor
// or rewrite earlier lines, and bidi controls could reorder what a line appears to say. Every byte the
// CLI writes goes through escapeControls (runCli wraps the IO), and single-line fields through oneLine.
import type { CliIO } from './io';

/**
 * C0 controls but \n and \t, DEL, C1 controls (which some terminals obey in UTF-8 too), the Unicode line
 * and paragraph separators, and the bidi controls (ALM, LRM, RLM, LRE…RLO, LRI…PDI).
 */
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const hex4 = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `text` with every terminal control shown as `\uXXXX`. In JSON text those characters can only occur
 * inside strings, where `\uXXXX` is the same character: JSON output stays valid and means the same.
 */
export function escapeControls(text: string): string {
  return text.replace(TERMINAL_CONTROLS, hex4);
}

/** A value printed inside one line of output: newlines and tabs shown as \n and \t, so it cannot fake lines. */
export function oneLine(text: string): string {
  return escapeControls(text.replace(/\n/g, '\\n').replace(/\t/g, '\\t'));
}

/** `io` with everything written to stdout and stderr passed through escapeControls. */
export function terminalSafe(io: CliIO): CliIO {
  return { ...io, stdout: (t) => io.stdout(escapeControls(t)), stderr: (t) => io.stderr(escapeControls(t)) };
}

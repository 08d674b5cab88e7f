// The session file's text: one message per line, and after a rewrite a first line that carries the
// compaction record of that rewrite (a Splitpoint JSONL header, so the importers read the file too).
// The record travels in the same atomic rename as the history it produced: a crash between the swap
// and the meta write is recovered from it at load.
import type { Message } from '../conversation/conversation';
import { errorMessage } from '../base/errors';
import { SPLITPOINT_FORMAT_VERSION, SPLITPOINT_HEADER_TYPE } from '../importers/types';
import { isRecord, messageProblem } from '../conversation/messageShape';
import type { CompactionRecord, SessionLoadError } from './sessionTypes';

/** The header field that holds the record of the rewrite that wrote the file. */
export const SESSION_COMMIT_KEY = 'commit';

export function sessionFileText(sessionId: string, messages: readonly Message[], record?: CompactionRecord): string {
  let out = record
    ? JSON.stringify({ type: SPLITPOINT_HEADER_TYPE, version: SPLITPOINT_FORMAT_VERSION, sessionId, [SESSION_COMMIT_KEY]: record }) + '\n'
    : '';
  for (const m of messages) out += JSON.stringify(m) + '\n';
  return out;
}

export interface ParsedSessionFile {
  messages: Message[];
  errors: SessionLoadError[];
  /** The raw text of each unreadable line (what a quarantine copy must keep). */
  corruptLines: string[];
  /** The header's commit record, unvalidated (undefined if the file has none). */
  commit: unknown;
}

/** Read the lines of a session file; an unreadable line is reported (file, line) and skipped. */
export function parseSessionLines(text: string, file: string): ParsedSessionFile {
  const out: ParsedSessionFile = { messages: [], errors: [], corruptLines: [], commit: undefined };
  const bad = (line: number, raw: string, message: string) => {
    out.errors.push({ file, line, message });
    out.corruptLines.push(raw);
  };
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      return bad(i + 1, raw, `invalid JSON: ${errorMessage(e)}`);
    }
    if (i === 0 && isRecord(value) && value.type === SPLITPOINT_HEADER_TYPE) {
      out.commit = value[SESSION_COMMIT_KEY];
      return;
    }
    const problem = messageProblem(value);
    if (problem) bad(i + 1, raw, problem);
    else out.messages.push(value as Message);
  });
  return out;
}

// Format detection: which supported format a session file is in, from its content (the whole file
// as JSON, else its first JSONL lines). The file name only decides how a JSON syntax error reads.
import { checkJsonDepth, jsonDepthOverflow, lineAt } from './bounds';
import { failAt, isObject, jsonSyntaxError, nonBlankLines, parseJsonLine, parsesAsObject, type Json } from './json';
import { ImportError, SESSION_FORMATS, SPLITPOINT_HEADER_TYPE, type SessionFormat } from './types';

export interface Sniffed {
  format: SessionFormat;
  /** The parsed file, for whole-file JSON formats. */
  json?: unknown;
}

/** How many non-blank lines detection reads before giving up on an unrecognised JSONL file. */
export const SNIFF_LINES = 50;

export function sniff(text: string, file: string): Sniffed {
  if (text.trim() === '') throw new ImportError(file, undefined, undefined, 'the file is empty');
  let whole: unknown;
  let wholeError: Error | undefined;
  try {
    whole = JSON.parse(text);
  } catch (e) {
    wholeError = e instanceof Error ? e : new Error(String(e));
  }
  const lines = nonBlankLines(text);
  if (wholeError === undefined) {
    const deep = jsonDepthOverflow(text);
    if (deep !== -1) checkJsonDepth(whole, text, '', failAt(file, lineAt(text, deep)));
    if (Array.isArray(whole) || (isObject(whole) && 'messages' in whole)) return { format: 'anthropic-json', json: whole };
    if (!isObject(whole) || lines.length > 1) throw unrecognised(file);
    // A single JSON object on one line: a one-line JSONL file.
  } else if (text.trimStart().startsWith('[') || (/\.json$/i.test(file) && !parsesAsObject(lines[0].raw))) {
    throw jsonSyntaxError(file, text, wholeError);
  }
  let examined = 0;
  for (const { line, raw } of lines) {
    const format = classifyLine(parseJsonLine(raw, line, file));
    if (format) return { format };
    if (++examined >= SNIFF_LINES) break;
  }
  throw unrecognised(file);
}

export function unrecognised(file: string): ImportError {
  const names = Object.values(SESSION_FORMATS).join('; ');
  return new ImportError(file, undefined, undefined, `unrecognised session format; supported formats: ${names}`);
}

export const CODEX_ENVELOPE_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const CODEX_ITEM_TYPES = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
]);
const CLAUDE_LINE_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'file-history-snapshot',
  'queue-operation',
  'progress',
  'attachment',
]);

/** The format one JSONL line belongs to, or undefined if the line alone does not tell. */
export function classifyLine(o: Json): SessionFormat | undefined {
  const type = o.type;
  if (type === SPLITPOINT_HEADER_TYPE) return 'splitpoint-jsonl';
  if (typeof type === 'string' && CODEX_ENVELOPE_TYPES.has(type) && 'payload' in o) return 'codex-rollout-jsonl';
  if (o.record_type === 'state') return 'codex-rollout-jsonl';
  if (typeof type === 'string' && CODEX_ITEM_TYPES.has(type) && !('payload' in o) && !('uuid' in o)) return 'codex-rollout-jsonl';
  if (typeof o.id === 'string' && typeof o.timestamp === 'string' && 'instructions' in o && !('type' in o)) return 'codex-rollout-jsonl';
  if ('parentUuid' in o || 'isSidechain' in o) return 'claude-code-jsonl';
  if (typeof type === 'string' && CLAUDE_LINE_TYPES.has(type)) {
    if (isObject(o.message) || 'uuid' in o || 'sessionId' in o || 'leafUuid' in o || 'messageId' in o) return 'claude-code-jsonl';
  }
  if (typeof o.id === 'string' && 'role' in o && 'content' in o && !('type' in o)) return 'splitpoint-jsonl';
  return undefined;
}

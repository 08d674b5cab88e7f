// Splitpoint JSONL: one Message per line, optionally after a header line. Exact round trip between
// serializeSplitpointJsonl and importSplitpointJsonl; messages are checked by the one message-shape
// validator the session log and transcripts use too.
import type { Message } from '../conversation';
import { checkMessage, isFiniteNumber } from '../messageShape';
import { describe, failAt, type Fail, type Json, type JsonLine } from './json';
import {
  SPLITPOINT_FORMAT_VERSION,
  SPLITPOINT_HEADER_TYPE,
  type ImportResult,
  type SplitpointHeader,
  type SplitpointHeaderFields,
} from './types';

/** Write messages (and an optional header) as Splitpoint JSONL; importSession reads it back unchanged. */
export function serializeSplitpointJsonl(messages: readonly Message[], header?: SplitpointHeaderFields | SplitpointHeader): string {
  const lines: string[] = [];
  if (header) {
    const { type: _type, version: _version, ...rest } = header;
    lines.push(JSON.stringify({ type: SPLITPOINT_HEADER_TYPE, version: SPLITPOINT_FORMAT_VERSION, ...rest }));
  }
  for (const m of messages) lines.push(JSON.stringify(canonicalMessage(m)));
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function canonicalMessage(m: Message): Message {
  const out: Message = { id: m.id, role: m.role, content: m.content };
  if (m.synthetic !== undefined) out.synthetic = m.synthetic;
  if (m.truncated !== undefined) out.truncated = m.truncated;
  if (m.createdAt !== undefined) out.createdAt = m.createdAt;
  return out;
}

export function importSplitpointJsonl(lines: readonly JsonLine[], file: string): ImportResult {
  const warnings: string[] = [];
  const messages: Message[] = [];
  const idLines = new Map<string, number>();
  let header: SplitpointHeader | undefined;
  lines.forEach(({ line, value }, index) => {
    const fail = failAt(file, line);
    if (value.type === SPLITPOINT_HEADER_TYPE) {
      if (index !== 0) fail('type', 'the header must be the first line of the file');
      header = checkHeader(value, fail);
      return;
    }
    const message = checkMessage(value, fail);
    const first = idLines.get(message.id);
    if (first !== undefined) warnings.push(`${file}:${line}: duplicate message id ${message.id} (also on line ${first})`);
    else idLines.set(message.id, line);
    messages.push(message);
  });
  const result: ImportResult = { format: 'splitpoint-jsonl', messages, compactions: [], warnings };
  if (header) result.header = header;
  return result;
}

function checkHeader(value: Json, fail: Fail): SplitpointHeader {
  if (value.version !== SPLITPOINT_FORMAT_VERSION) {
    fail(
      'version',
      `unsupported Splitpoint JSONL version ${describe(value.version)} (this build reads version ${SPLITPOINT_FORMAT_VERSION})`,
    );
  }
  if (value.sessionId !== undefined && typeof value.sessionId !== 'string')
    fail('sessionId', `expected a string, got ${describe(value.sessionId)}`);
  if (value.createdAt !== undefined && !isFiniteNumber(value.createdAt))
    fail('createdAt', `expected epoch milliseconds, got ${describe(value.createdAt)}`);
  return value as SplitpointHeader;
}

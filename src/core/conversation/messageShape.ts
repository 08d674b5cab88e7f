// The one check of a message's shape: every reader of stored messages (session logs, transcripts,
// Splitpoint JSONL imports, Anthropic request bodies) validates with these functions, so a message one
// of them accepts the others accept too. Each problem names the field and what was found there.
import type { ArtefactKind, ContentBlock, Message, RecordedUsage, Role, SyntheticKind, TruncationNote } from './conversation';
import { SplitpointError } from '../base/errors';

/** Reports a problem at `field` ('' for the value itself); never returns. */
export type Fail = (field: string, detail: string) => never;

/** A stored value that is not a valid message. */
export class MessageShapeError extends SplitpointError {
  constructor(
    readonly field: string,
    readonly detail: string,
  ) {
    super(field ? `${field}: ${detail}` : detail);
    this.name = 'MessageShapeError';
  }
}

const throwShapeError: Fail = (field, detail) => {
  throw new MessageShapeError(field, detail);
};

/** Why a parsed JSON value is not a message (naming the field), or null if it is one. */
export function messageProblem(value: unknown): string | null {
  try {
    checkMessage(value);
    return null;
  } catch (e) {
    if (!(e instanceof MessageShapeError)) throw e;
    return e.field ? `field "${e.field}": ${e.detail}` : e.detail;
  }
}

export function checkMessage(value: unknown, fail: Fail = throwShapeError): Message {
  if (!isRecord(value)) return fail('', `expected a message object, got ${describe(value)}`);
  if (typeof value.id !== 'string' || value.id === '') fail('id', `expected a non-empty string, got ${describe(value.id)}`);
  const role = checkRole(value.role, 'role', fail);
  const content = checkContent(value.content, 'content', fail);
  const message: Message = { id: value.id as string, role, content };
  if (value.synthetic !== undefined) {
    if (value.synthetic !== 'summary' && value.synthetic !== 'placeholder') {
      fail('synthetic', `expected "summary" or "placeholder", got ${describe(value.synthetic)}`);
    }
    message.synthetic = value.synthetic as SyntheticKind;
  }
  if (value.truncated !== undefined) message.truncated = checkTruncation(value.truncated, fail);
  if (value.createdAt !== undefined) {
    if (!isFiniteNumber(value.createdAt)) fail('createdAt', `expected epoch milliseconds, got ${describe(value.createdAt)}`);
    message.createdAt = value.createdAt as number;
  }
  if (value.artefact !== undefined) {
    if (typeof value.artefact !== 'string' || !ARTEFACT_KINDS.has(value.artefact)) {
      fail('artefact', `expected one of ${[...ARTEFACT_KINDS].join(', ')}, got ${describe(value.artefact)}`);
    }
    if (role !== 'user') fail('artefact', 'only user-role messages can be artefacts');
    message.artefact = value.artefact as ArtefactKind;
  }
  if (value.usage !== undefined) message.usage = checkUsage(value.usage, fail);
  return message;
}

const ARTEFACT_KINDS: ReadonlySet<string> = new Set<ArtefactKind>([
  'command',
  'command-output',
  'interruption',
  'notification',
  'shell-input',
  'attachment',
  'meta',
  'instructions',
]);

function checkUsage(value: unknown, fail: Fail): RecordedUsage {
  if (!isRecord(value)) return fail('usage', `expected an object, got ${describe(value)}`);
  const usage: RecordedUsage = { inputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0, outputTokens: 0 };
  for (const key of ['inputTokens', 'cacheReadTokens', 'cacheCreationTokens', 'outputTokens'] as const) {
    const n = value[key];
    if (!isFiniteNumber(n) || n < 0) fail(`usage.${key}`, `expected a non-negative number, got ${describe(n)}`);
    usage[key] = n as number;
  }
  if (value.cacheWrite1hTokens !== undefined) {
    const n = value.cacheWrite1hTokens;
    if (!isFiniteNumber(n) || n < 0 || n > usage.cacheCreationTokens) {
      fail(
        'usage.cacheWrite1hTokens',
        `expected a non-negative number up to cacheCreationTokens (${usage.cacheCreationTokens}), got ${describe(n)}`,
      );
    }
    usage.cacheWrite1hTokens = n as number;
  }
  if (value.model !== undefined) {
    if (typeof value.model !== 'string') fail('usage.model', `expected a string, got ${describe(value.model)}`);
    usage.model = value.model as string;
  }
  if (value.contextWindow !== undefined) {
    if (!isFiniteNumber(value.contextWindow) || value.contextWindow <= 0) {
      fail('usage.contextWindow', `expected a positive number, got ${describe(value.contextWindow)}`);
    }
    usage.contextWindow = value.contextWindow as number;
  }
  return usage;
}

function checkTruncation(value: unknown, fail: Fail): TruncationNote {
  if (!isRecord(value)) return fail('truncated', `expected an object, got ${describe(value)}`);
  if (!Array.isArray(value.results)) return fail('truncated.results', `expected an array, got ${describe(value.results)}`);
  value.results.forEach((r: unknown, i: number) => {
    const field = `truncated.results[${i}]`;
    if (!isRecord(r)) return fail(field, `expected an object, got ${describe(r)}`);
    if (typeof r.toolUseId !== 'string') fail(`${field}.toolUseId`, `expected a string, got ${describe(r.toolUseId)}`);
    if (typeof r.toolName !== 'string') fail(`${field}.toolName`, `expected a string, got ${describe(r.toolName)}`);
    if (!isFiniteNumber(r.originalChars)) fail(`${field}.originalChars`, `expected a number, got ${describe(r.originalChars)}`);
    if (r.superseded !== undefined && typeof r.superseded !== 'string')
      fail(`${field}.superseded`, `expected a string, got ${describe(r.superseded)}`);
  });
  return value as unknown as TruncationNote;
}

export function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

export function checkRole(value: unknown, field: string, fail: Fail = throwShapeError): Role {
  if (value !== 'user' && value !== 'assistant') fail(field, `expected "user" or "assistant", got ${describe(value)}`);
  return value;
}

export function checkContent(value: unknown, field: string, fail: Fail = throwShapeError): string | ContentBlock[] {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return fail(field, `expected a string or an array of content blocks, got ${describe(value)}`);
  value.forEach((block, i) => checkBlock(block, `${field}[${i}]`, fail));
  return value as ContentBlock[];
}

function checkBlock(block: unknown, field: string, fail: Fail): void {
  if (!isRecord(block)) return fail(field, `expected a content block object, got ${describe(block)}`);
  if (typeof block.type !== 'string' || block.type === '')
    return fail(`${field}.type`, `expected a block type, got ${describe(block.type)}`);
  switch (block.type) {
    case 'text':
      requireString(block, 'text', field, fail, 'a text block needs its text');
      break;
    case 'tool_use':
      requireString(block, 'id', field, fail, 'a tool_use block needs a non-empty id', true);
      requireString(block, 'name', field, fail, 'a tool_use block needs a non-empty name', true);
      if (!isRecord(block.input)) fail(`${field}.input`, `expected an object, got ${describe(block.input)}`);
      break;
    case 'tool_result':
      requireString(block, 'tool_use_id', field, fail, 'a tool_result block needs the id of its tool_use', true);
      if (block.content !== undefined) {
        if (typeof block.content !== 'string' && !Array.isArray(block.content)) {
          fail(`${field}.content`, `expected a string or an array of content blocks, got ${describe(block.content)}`);
        }
        if (Array.isArray(block.content)) block.content.forEach((b, i) => checkBlock(b, `${field}.content[${i}]`, fail));
      }
      if (block.is_error !== undefined && block.is_error !== null && typeof block.is_error !== 'boolean') {
        fail(`${field}.is_error`, `expected true or false, got ${describe(block.is_error)}`);
      }
      break;
    case 'thinking':
      requireString(block, 'thinking', field, fail, 'a thinking block needs its text');
      if (block.signature !== undefined && typeof block.signature !== 'string') {
        fail(`${field}.signature`, `expected a string, got ${describe(block.signature)}`);
      }
      break;
    case 'redacted_thinking':
      requireString(block, 'data', field, fail, 'a redacted_thinking block needs its data');
      break;
    case 'image':
      if (!isRecord(block.source)) fail(`${field}.source`, `expected an image source object, got ${describe(block.source)}`);
      break;
    default:
      break; // documents, server tools, …: kept as they are
  }
}

function requireString(block: Record<string, unknown>, key: string, field: string, fail: Fail, missing: string, nonEmpty = false): void {
  const value = block[key];
  if (value === undefined) fail(`${field}.${key}`, `missing: ${missing}`);
  if (typeof value !== 'string') fail(`${field}.${key}`, `expected a string, got ${describe(value)}`);
  if (nonEmpty && value === '') fail(`${field}.${key}`, `expected a non-empty string, got ""`);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short description of a value found where something else was expected. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

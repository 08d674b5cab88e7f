// What one session file's head and tail say, for a row of the sessions list (discover.ts): the bounded
// read. Only the head (the first HEAD_BYTES, extended to HEAD_MAX_BYTES while no title was found) and
// the tail (the last TAIL_BYTES, from the first line start in them) are read, and only their complete
// lines are parsed; an unfinished last line means the agent is writing it.
//
// Per agent (the same classifiers the importers use, so a title is a genuine prompt, never an injection):
//  - Claude Code: title = the last `custom-title` (a /rename), else the last `ai-title`, else the last
//    `summary` line, else the first genuine prompt of the head (claudeCodeArtefacts.ts; a custom slash
//    command's stub counts as what was typed); model and usage from the last assistant line of the
//    tail that has them (claudeCodeUsage.ts, sub-agent sidechain lines left out); cwd from the head.
//  - Codex: cwd from the session_meta line; model from the last turn_context; title = the first user
//    message part classifyCodexUserText calls a prompt (AGENTS.md, <environment_context>… are not);
//    usage and window from the tail's token_count events (CodexUsageReader).
//  - Splitpoint: messages (after an optional header line); the title and compactions are in the meta.
// contextTokens is the last call's input + cache read + cache write; null when a compaction marker
// follows that call in the tail (the context it measured is gone).
import { open, type FileHandle } from 'node:fs/promises';
import { recordedInputTokens, type Message, type RecordedUsage } from '../conversation/conversation';
import { artefactKindOf, isCommandStub, typedCommand, userText } from '../importers/claudeCodeArtefacts';
import { recordedModel, recordedUsage } from '../importers/claudeCodeUsage';
import { classifyCodexUserText } from '../importers/codexContext';
import { CodexUsageReader } from '../importers/codexUsage';
import { classifyLine } from '../importers/detect';
import { isObject, timestampMs, type Json } from '../importers/json';
import type { SessionFormat } from '../importers/types';
import { sessionWindow } from '../importers/window';

export const HEAD_BYTES = 64 * 1024;
export const HEAD_MAX_BYTES = 256 * 1024;
export const TAIL_BYTES = 256 * 1024;
/** Longest title kept (whitespace collapsed). */
export const TITLE_CHARS = 200;

/** What the head and tail of a file say. */
export interface Peeked {
  /** The format the head's lines say (undefined: none of them is a known session line). */
  format: SessionFormat | undefined;
  cwd: string | null;
  model: string | null;
  title: string | null;
  /** Epoch ms of the last timestamped line of the tail. */
  lastTimestamp: number | null;
  contextTokens: number | null;
  contextWindow: number | null;
  /** The file does not end with a newline: its last line is being written. */
  endsMidLine: boolean;
  /** A Claude Code sub-agent transcript (every message line is sidechain). */
  sidechain: boolean;
  /** Bytes read. */
  bytesRead: number;
}

interface Region {
  /** Complete lines, in order. */
  lines: string[];
  /** The region reaches the end of the file. */
  toEnd: boolean;
}

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await handle.read(buf, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/** The complete lines of `buf` (starting at a line start when `aligned`, else after its first newline). */
function completeLines(buf: Buffer, aligned: boolean): string[] {
  const start = aligned ? 0 : buf.indexOf(0x0a) + 1;
  const end = buf.lastIndexOf(0x0a);
  if (start <= 0 && !aligned) return [];
  if (end < start) return [];
  return buf
    .subarray(start, end)
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
}

/** The text after the last newline of `buf` (undefined when it ends with one or is empty). */
function unterminated(buf: Buffer, aligned: boolean): string | undefined {
  if (buf.length === 0 || buf[buf.length - 1] === 0x0a) return undefined;
  const nl = buf.lastIndexOf(0x0a);
  if (nl < 0 && !aligned) return undefined;
  const text = buf.subarray(nl + 1).toString('utf8');
  return text.trim() === '' ? undefined : text;
}

function parse(raw: string): Json | undefined {
  try {
    const v: unknown = JSON.parse(raw);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Message lines looked at to tell a sub-agent transcript (all sidechain) from a session. */
const SIDECHAIN_SAMPLE = 5;

/** A Claude Code line that may hold a title (a rename, the agent's title, a summary). */
function mayBeTitle(raw: string): boolean {
  return raw.includes('"custom-title"') || raw.includes('"ai-title"') || raw.includes('"summary"');
}

/** The timestamp of the last line that has one (epoch ms). */
function lastTimestampOf(lines: readonly string[]): number | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const ts = timestampMs(parse(lines[i])?.timestamp);
    if (ts !== undefined) return ts;
  }
  return null;
}

function cleanTitle(text: string): string | null {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t === '') return null;
  return t.length > TITLE_CHARS ? `${t.slice(0, TITLE_CHARS - 1)}…` : t;
}

/** Reads the head and tail of `file` (of `size` bytes) and what they say. Throws only the file system's errors. */
export async function peekSession(file: string, size: number): Promise<Peeked> {
  const handle = await open(file, 'r');
  try {
    let bytesRead = 0;
    const read = async (position: number, length: number) => {
      const b = await readAt(handle, position, length);
      bytesRead += b.length;
      return b;
    };
    const headBuf = await read(0, Math.min(size, HEAD_BYTES));
    const headReachesEnd = headBuf.length >= size;
    let head: Region = { lines: completeLines(headBuf, true), toEnd: headReachesEnd };
    const headRest = headReachesEnd ? unterminated(headBuf, true) : undefined;
    if (headRest !== undefined && parse(headRest) !== undefined) head.lines.push(headRest);
    const tailStart = Math.max(0, size - TAIL_BYTES);
    const tailBuf = tailStart === 0 && headReachesEnd ? headBuf : await read(tailStart, size - tailStart);
    const tail: Region = { lines: completeLines(tailBuf, tailStart === 0), toEnd: true };
    // A last line without its newline is being written, unless it is a whole JSON object (some tools
    // save a finished session without the final newline).
    const rest = unterminated(tailBuf, tailStart === 0);
    const endsMidLine = rest !== undefined && parse(rest) === undefined;
    if (rest !== undefined && !endsMidLine) tail.lines.push(rest);
    const format = detect(head.lines);
    const extendHead = async (): Promise<Region | undefined> => {
      if (head.toEnd || headBuf.length >= HEAD_MAX_BYTES) return undefined;
      const more = await read(0, Math.min(size, HEAD_MAX_BYTES));
      head = { lines: completeLines(more, true), toEnd: more.length >= size };
      return head;
    };
    const base = { format, endsMidLine, bytesRead: 0, sidechain: false };
    let found: Omit<Peeked, 'format' | 'endsMidLine' | 'bytesRead' | 'sidechain'> & { sidechain?: boolean };
    if (format === 'claude-code-jsonl') found = await claudeCode(head, tail, extendHead);
    else if (format === 'codex-rollout-jsonl') found = await codex(head, tail, extendHead);
    else if (format === 'splitpoint-jsonl') found = splitpoint(tail);
    else found = { cwd: null, model: null, title: null, lastTimestamp: null, contextTokens: null, contextWindow: null };
    return { ...base, ...found, bytesRead };
  } finally {
    await handle.close();
  }
}

function detect(lines: readonly string[]): SessionFormat | undefined {
  for (const raw of lines.slice(0, 50)) {
    const o = parse(raw);
    const f = o && classifyLine(o);
    if (f) return f;
  }
  return undefined;
}

/** The window a session with this last call and model runs with (importers/window.ts's evidence rules). */
function windowOf(usage: RecordedUsage | undefined, model: string | null, recorded: number | undefined): number | null {
  if (usage === undefined && model === null && recorded === undefined) return null;
  const messages: Message[] = usage ? [{ id: 'last', role: 'assistant', content: '', usage }] : [];
  return sessionWindow({ messages, compactions: [], ...(recorded ? { contextWindow: recorded } : {}), ...(model ? { model } : {}) }).window;
}

type Found = Omit<Peeked, 'format' | 'endsMidLine' | 'bytesRead'>;

async function claudeCode(head: Region, tail: Region, extendHead: () => Promise<Region | undefined>): Promise<Found> {
  let cwd: string | null = null;
  let customTitle: string | undefined;
  let aiTitle: string | undefined;
  let summary: string | undefined;
  let model: string | null = null;
  let usage: RecordedUsage | undefined;
  let usageAt = -1;
  let compactAt = -1;
  let messageLines = 0;
  let sidechainLines = 0;
  const noWarnings: string[] = [];
  const titles = (o: Json) => {
    if (o.type === 'custom-title' && typeof o.customTitle === 'string') customTitle = o.customTitle;
    else if (o.type === 'ai-title' && typeof o.aiTitle === 'string') aiTitle = o.aiTitle;
    else if (o.type === 'summary' && typeof o.summary === 'string') summary = o.summary;
  };
  // Only the lines that can matter are parsed (a quoted key inside a string reads \"key\": no false skip).
  for (const raw of head.lines) {
    const needed: boolean = cwd === null || messageLines < SIDECHAIN_SAMPLE || mayBeTitle(raw);
    const o: Json | undefined = needed ? parse(raw) : undefined;
    if (!o) continue;
    if (cwd === null && typeof o.cwd === 'string' && o.cwd !== '') cwd = o.cwd;
    if ((o.type === 'user' || o.type === 'assistant') && messageLines < SIDECHAIN_SAMPLE) {
      messageLines++;
      if (o.isSidechain === true) sidechainLines++;
    }
    titles(o);
  }
  const lastTimestamp = lastTimestampOf(tail.lines);
  tail.lines.forEach((raw, i) => {
    if (!raw.includes('"assistant"') && !raw.includes('"compact_boundary"') && !mayBeTitle(raw)) return;
    const o = parse(raw);
    if (!o) return;
    titles(o);
    if (o.type === 'system' && o.subtype === 'compact_boundary') compactAt = i;
    if (o.type !== 'assistant' || o.isSidechain === true || !isObject(o.message)) return;
    const m = recordedModel(o.message);
    if (m !== undefined) model = m;
    const u = recordedUsage(o.message, '', noWarnings);
    if (u && recordedInputTokens(u) > 0) {
      usage = u;
      usageAt = i;
    }
  });
  if (cwd === null) {
    for (const raw of tail.lines) {
      const o = parse(raw);
      if (o && typeof o.cwd === 'string' && o.cwd !== '') {
        cwd = o.cwd;
        break;
      }
    }
  }
  let title = cleanTitle(customTitle ?? aiTitle ?? summary ?? '');
  if (title === null) {
    title = firstClaudePrompt(head.lines);
    if (title === null) {
      const more = await extendHead();
      if (more) title = firstClaudePrompt(more.lines);
    }
  }
  const contextTokens = usage && usageAt > compactAt ? recordedInputTokens(usage) : null;
  return {
    cwd,
    model,
    title,
    lastTimestamp,
    contextTokens,
    contextWindow: windowOf(usage, model, undefined),
    sidechain: messageLines > 0 && sidechainLines === messageLines,
  };
}

/** The first genuine prompt of Claude Code lines (a custom command's stub answered by its body: what was typed). */
function firstClaudePrompt(lines: readonly string[]): string | null {
  let stub: { uuid: unknown; typed: string } | undefined;
  for (const raw of lines) {
    if (!raw.includes('"user"')) continue;
    const o = parse(raw);
    if (!o || o.type !== 'user' || o.isSidechain === true || o.isCompactSummary === true || !isObject(o.message)) continue;
    const content = o.message.content;
    if (typeof content !== 'string' && !Array.isArray(content)) continue;
    if (Array.isArray(content) && content.some((b) => isObject(b) && b.type === 'tool_result')) continue;
    const isMeta = o.isMeta === true;
    if (stub && isMeta && o.parentUuid === stub.uuid) return cleanTitle(stub.typed);
    stub = undefined;
    const text = userText(content as Parameters<typeof userText>[0]);
    const kind = artefactKindOf(text, isMeta);
    if (kind === undefined) {
      const t = cleanTitle(text);
      if (t !== null) return t;
    } else if (kind === 'command' && isCommandStub(text)) {
      const typed = typedCommand(text);
      if (typed) stub = { uuid: o.uuid, typed };
    }
  }
  return null;
}

async function codex(head: Region, tail: Region, extendHead: () => Promise<Region | undefined>): Promise<Found> {
  let cwd: string | null = null;
  let model: string | null = null;
  for (const raw of head.lines) {
    if (!raw.includes('"session_meta"') && !raw.includes('"turn_context"')) continue;
    const o = parse(raw);
    if (!o || !isObject(o.payload)) continue;
    if (o.type === 'session_meta' && cwd === null && typeof o.payload.cwd === 'string') cwd = o.payload.cwd;
    if (o.type === 'turn_context' && typeof o.payload.model === 'string' && o.payload.model !== '') model = o.payload.model;
  }
  let usage: RecordedUsage | undefined;
  let usageAt = -1;
  let compactAt = -1;
  let window: number | undefined;
  const reader = new CodexUsageReader();
  const lastTimestamp = lastTimestampOf(tail.lines);
  tail.lines.forEach((raw, i) => {
    if (!raw.includes('"token_count"') && !raw.includes('"compacted"') && !raw.includes('"turn_context"')) return;
    const o = parse(raw);
    if (!o) return;
    if (o.type === 'compacted') compactAt = i;
    if (!isObject(o.payload)) return;
    if (o.type === 'turn_context' && typeof o.payload.model === 'string' && o.payload.model !== '') model = o.payload.model;
    if (o.type === 'event_msg' && o.payload.type === 'token_count') {
      const { call, contextWindow } = reader.read(o.payload, model ?? undefined, () => undefined);
      if (contextWindow !== undefined) window = contextWindow;
      if (call) {
        usage = call.usage;
        usageAt = i;
      }
    }
  });
  let title = firstCodexPrompt(head.lines);
  if (title === null) {
    const more = await extendHead();
    if (more) title = firstCodexPrompt(more.lines);
  }
  return {
    cwd,
    model,
    title,
    lastTimestamp,
    contextTokens: usage && usageAt > compactAt ? recordedInputTokens(usage) : null,
    contextWindow: windowOf(usage, model, window),
    sidechain: false,
  };
}

/** The first user message part of Codex lines that is a prompt (not an injection, not a summary). */
function firstCodexPrompt(lines: readonly string[]): string | null {
  for (const raw of lines) {
    if (!raw.includes('"response_item"') || !raw.includes('"user"')) continue;
    const o = parse(raw);
    if (!o || o.type !== 'response_item' || !isObject(o.payload)) continue;
    const p = o.payload;
    if (p.type !== 'message' || p.role !== 'user' || !Array.isArray(p.content)) continue;
    for (const part of p.content) {
      if (!isObject(part) || typeof part.text !== 'string') continue;
      if (classifyCodexUserText(part.text) !== 'prompt') continue;
      const t = cleanTitle(part.text);
      if (t !== null) return t;
    }
  }
  return null;
}

function splitpoint(tail: Region): Found {
  let model: string | null = null;
  let usage: RecordedUsage | undefined;
  let lastTimestamp: number | null = null;
  for (const raw of tail.lines) {
    const o = parse(raw);
    if (!o) continue;
    if (typeof o.createdAt === 'number' && Number.isFinite(o.createdAt)) lastTimestamp = o.createdAt;
    if (o.role !== 'assistant' || !isObject(o.usage)) continue;
    const u = o.usage as unknown as RecordedUsage;
    if (typeof u.inputTokens !== 'number' || typeof u.cacheReadTokens !== 'number' || typeof u.cacheCreationTokens !== 'number') continue;
    usage = u;
    if (typeof u.model === 'string') model = u.model;
  }
  return {
    cwd: null,
    model,
    title: null,
    lastTimestamp,
    contextTokens: usage ? recordedInputTokens(usage) : null,
    contextWindow: windowOf(usage, model, usage?.contextWindow),
    sidechain: false,
  };
}

/**
 * Peeks by file, reused while the file's size, mtime and inode stay the same: a refresh of the list reads
 * only the files that changed.
 */
export class PeekMemo {
  private readonly entries = new Map<string, { size: number; mtimeMs: number; ino: number; peeked: Peeked }>();
  /** Files actually read (not answered from the memo). */
  reads = 0;

  async peek(file: string, stat: { size: number; mtimeMs: number; ino: number }): Promise<Peeked> {
    const known = this.entries.get(file);
    if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs && known.ino === stat.ino) return known.peeked;
    const peeked = await peekSession(file, stat.size);
    this.reads++;
    this.entries.set(file, { ...stat, peeked });
    return peeked;
  }

  /** Forget files not in `keep`. */
  prune(keep: ReadonlySet<string>): void {
    for (const f of this.entries.keys()) if (!keep.has(f)) this.entries.delete(f);
  }
}

/** The memo discovery uses when its caller gives none (one per process). */
export const defaultPeekMemo = new PeekMemo();

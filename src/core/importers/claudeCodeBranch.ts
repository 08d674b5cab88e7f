// The shape of a Claude Code session file as a tree: which lines are on the conversation's current branch
// (parentUuid links), and in which order to read them (a tool_result line written before its tool_use
// line is read right after it).
import { isObject, type Json, type JsonLine } from './json';
import { LOOP_ITEMS_PER_STEP, type ImportSteps } from './steps';

/**
 * The uuids of the lines on the conversation's current branch, or undefined when every line is to be kept
 * (no parentUuid links, a dangling link, a cycle: the file is then read as one linear chain). The branch
 * is the ancestry of the last main-chain message line, through compact boundaries (logicalParentUuid; a
 * boundary whose logical parent was not recorded continues from the last message line above it), plus the
 * lines that ancestry cannot reach but that belong to it: the other lines of its assistant responses (same
 * message.id) and the results of its tool calls (parallel calls hang their results off different lines, so
 * the chain is a tree there).
 */
export function* activeBranch(
  uuids: UuidIndex,
  messageLines: readonly JsonLine[],
  sidechain: boolean,
): ImportSteps<Set<string> | undefined> {
  let n = 0;
  if (messageLines.length === 0) return undefined;
  for (const l of messageLines) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    if (typeof l.value.uuid !== 'string') return undefined;
  }
  // The lines of the chain by uuid.
  const onChain = (l: JsonLine | undefined): JsonLine | undefined => (l && (l.value.isSidechain === true) === sidechain ? l : undefined);
  const byUuid = { has: (u: string) => onChain(uuids.get(u)) !== undefined, get: (u: string) => onChain(uuids.get(u)) };
  const kept = new Set<string>();
  let current: JsonLine | undefined = messageLines[messageLines.length - 1];
  while (current) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    const uuid = current.value.uuid as string;
    if (kept.has(uuid)) return undefined;
    kept.add(uuid);
    const at = current.line;
    const next = parentStep(
      current.value,
      (u) => byUuid.has(u),
      () => lastMessageLineBefore(messageLines, at)?.value.uuid as string | undefined,
    );
    if (next === 'broken') return undefined;
    if (next === 'root') break;
    current = byUuid.get(next.parent);
  }

  const responseIds = new Set<string>();
  for (const l of messageLines) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    const id = assistantMessageId(l);
    if (id !== undefined && kept.has(l.value.uuid as string)) responseIds.add(id);
  }
  for (const l of messageLines) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    const id = assistantMessageId(l);
    if (id !== undefined && responseIds.has(id)) kept.add(l.value.uuid as string);
  }
  const callIds = new Set<string>();
  for (const l of messageLines) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    if (l.value.type === 'assistant' && kept.has(l.value.uuid as string)) {
      for (const id of blockIds(l.value, 'tool_use')) callIds.add(id);
    }
  }
  for (const l of messageLines) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    if (l.value.type !== 'user') continue;
    if (blockIds(l.value, 'tool_result').some((id) => callIds.has(id))) {
      kept.add(l.value.uuid as string);
    }
  }
  return kept;
}

/**
 * One step of the walk up a branch from the line `v`: to its parent (`logicalParentUuid` for a compact
 * boundary, whose parentUuid is null; a boundary whose logical parent was not recorded continues from the
 * last message line above it, `above`), 'root' where the branch starts, 'broken' where there is no branch
 * (a dangling or malformed link, a compaction summary or boundary with nothing above it). `has` says
 * whether a uuid is a line of the chain.
 */
export function parentStep(
  v: Json,
  has: (uuid: string) => boolean,
  above: () => string | undefined,
): { parent: string } | 'root' | 'broken' {
  const parent = v.parentUuid;
  const logical = v.logicalParentUuid;
  if (parent === null && typeof logical === 'string') {
    if (has(logical)) return { parent: logical };
    if (v.subtype === 'compact_boundary') {
      const line = above();
      return line === undefined ? 'root' : { parent: line };
    }
  }
  // A root. A compaction summary with no boundary line above it would hide the history before it.
  if (parent === null) return v.isCompactSummary === true || v.subtype === 'compact_boundary' ? 'broken' : 'root';
  if (typeof parent !== 'string' || !has(parent)) return 'broken';
  return { parent };
}

function lastMessageLineBefore(messageLines: readonly JsonLine[], line: number): JsonLine | undefined {
  let found: JsonLine | undefined;
  for (const l of messageLines) {
    if (l.line >= line) break;
    found = l;
  }
  return found;
}

/**
 * The lines in reading order: file order, except that a user line carrying tool results written before
 * the line it answers (its parentUuid, or the line holding one of its tool_use ids, further down the file)
 * is read right after that line. Claude Code sometimes writes a result before its call; the parentUuid
 * chain is right, the file order is not. Each move is reported in `warnings`.
 */
export function* relinkResults(uuids: UuidIndex, file: string, warnings: string[]): ImportSteps<readonly JsonLine[]> {
  let n = 0;
  const { entries } = uuids;
  const callPosition = new Map<string, number>();
  for (let i = 0; i < entries.length; i++) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    const l = entries[i];
    if (l.value.type === 'assistant') {
      for (const id of blockIds(l.value, 'tool_use')) if (!callPosition.has(id)) callPosition.set(id, i);
    }
  }
  const deferred = new Map<number, number[]>();
  const moved = new Set<number>();
  for (let i = 0; i < entries.length; i++) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    const l = entries[i];
    if (l.value.type !== 'user') continue;
    const resultIds = blockIds(l.value, 'tool_result');
    if (resultIds.length === 0) continue;
    let anchor = -1;
    const parent = typeof l.value.parentUuid === 'string' ? uuids.index(l.value.parentUuid) : undefined;
    if (parent !== undefined && parent > i) anchor = parent;
    for (const id of resultIds) {
      const call = callPosition.get(id);
      if (call !== undefined && call > i) anchor = Math.max(anchor, call);
    }
    if (anchor < 0) continue;
    moved.add(i);
    const waiting = deferred.get(anchor);
    if (waiting) waiting.push(i);
    else deferred.set(anchor, [i]);
    warnings.push(`${file}:${l.line}: tool result written before the line it answers (line ${entries[anchor].line}); read after it`);
  }
  // Nothing moved: the file order is the reading order (the caller only iterates it).
  if (moved.size === 0) return entries;
  const out: JsonLine[] = [];
  const emit = (i: number): void => {
    out.push(entries[i]);
    for (const d of deferred.get(i) ?? []) emit(d);
  };
  for (let i = 0; i < entries.length; i++) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    if (!moved.has(i)) emit(i);
  }
  return out;
}

/**
 * The entries of a file (every line with a uuid, first occurrence only, in file order) by uuid, through the
 * map of the line each uuid was first seen on: the passes over a long file share that one map rather than
 * each building its own (a map of every uuid of a 200 MB file is tens of megabytes, and each one built
 * is garbage the heap holds until its next full collection).
 */
export class UuidIndex {
  constructor(
    readonly entries: readonly JsonLine[],
    private readonly firstLine: ReadonlyMap<string, number>,
  ) {}

  /** The position in `entries` of the line with this uuid. */
  index(uuid: string): number | undefined {
    const line = this.firstLine.get(uuid);
    if (line === undefined) return undefined;
    const { entries } = this;
    let lo = 0;
    let hi = entries.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = entries[mid].line;
      if (at === line) return entries[mid].value.uuid === uuid ? mid : undefined;
      if (at < line) lo = mid + 1;
      else hi = mid - 1;
    }
    // Not in file order (never from a file read top to bottom): look through them all.
    const i = entries.findIndex((l) => l.line === line && l.value.uuid === uuid);
    return i < 0 ? undefined : i;
  }

  /** The line with this uuid. */
  get(uuid: string): JsonLine | undefined {
    const i = this.index(uuid);
    return i === undefined ? undefined : this.entries[i];
  }
}

export function assistantMessageId(l: JsonLine): string | undefined {
  if (l.value.type !== 'assistant' || !isObject(l.value.message)) return undefined;
  return typeof l.value.message.id === 'string' ? l.value.message.id : undefined;
}

/** The blocks (objects) of a line's message content. */
export function messageBlocks(v: Json): Json[] {
  const content = isObject(v.message) ? v.message.content : undefined;
  return Array.isArray(content) ? content.filter(isObject) : [];
}

/** The ids a line's message carries in its `tool_use` blocks (their id) or `tool_result` blocks (the call's id). */
export function blockIds(v: Json, type: 'tool_use' | 'tool_result'): string[] {
  const field = type === 'tool_use' ? 'id' : 'tool_use_id';
  const out: string[] = [];
  for (const b of messageBlocks(v)) if (b.type === type && typeof b[field] === 'string') out.push(b[field]);
  return out;
}

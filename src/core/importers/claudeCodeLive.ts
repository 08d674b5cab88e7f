// A Claude Code file followed as it is written (follow.ts): the import of the whole file once, then each
// appended line read into the same reader, so a result costs what the new lines cost (plus a snapshot of the
// current stretch), never a whole import.
//
// The import reads the branch of the LAST message line (claudeCodeBranch.ts). An appended line extends it
// when its parentUuid chain reaches the branch through lines appended since (an attachment, a compact
// boundary: held as the tail until a message line chains through them, as the whole import reads them
// only then) and every line of the old branch stays on the new one (parallel tool calls hang their
// results off different lines: a line that leaves the chain stays by the same-response and
// results-of-its-calls rules). Anything else (a rewind or an edit, a result written before its call,
// a compaction that keeps a segment, a sub-agent file's first line, lines without uuids…) returns false:
// the follower imports the whole file again and goes on from there.
import { readClaudeCode, repeatedUuid, type ClaudeCodeRead } from './claudeCode';
import { assistantMessageId, blockIds, parentStep } from './claudeCodeBranch';
import { isObject, type Json, type JsonLine } from './json';
import { LOOP_ITEMS_PER_STEP, type ImportSteps } from './steps';
import type { ImportResult } from './types';

/** What the walks need of a line of the chain. */
interface Node {
  uuid: string;
  /** The fields parentStep reads. */
  links: Json;
  /** The last message line above it (where a boundary without a recorded logical parent goes on). */
  above: string | undefined;
  type: unknown;
  /** Assistant lines: the response's message.id. */
  responseId?: string;
  /** User lines: the tool calls its results answer. */
  results: string[];
}

export class ClaudeCodeLive {
  /** The chain cannot be followed line by line (no branch, or a tail the whole import reads oddly): every line returns false. */
  private resumable = true;
  /** Some message line has no uuid: the whole file is one linear chain, for good. */
  private linear = false;
  /** A message line was read (on either chain). */
  private anyMessage = false;
  private leaf: string | undefined;
  /** The ancestry of the leaf, root first, and each uuid's place in it. */
  private readonly chain: Node[] = [];
  private readonly chainAt = new Map<string, number>();
  /** Lines of the branch's assistant responses (message.id) on the chain. */
  private readonly onChainResponses = new Map<string, number>();
  /** Lines of the chain read (main or sidechain) with a uuid. */
  private readonly nodes = new Map<string, Node>();
  /** Uuids of the tail's lines. */
  private readonly tailUuids = new Set<string>();
  /** The first assistant line with each tool call, and its response id. */
  private readonly callOwner = new Map<string, { uuid: string; responseId?: string }>();
  /** Response ids and answered calls of message lines off the branch: a new line sharing one would bring them back. */
  private readonly offResponses = new Set<string>();
  private readonly offResults = new Set<string>();
  /** Tool calls seen (any chain), results without their call yet, parents and logical parents not seen yet. */
  private readonly seenCalls = new Set<string>();
  private readonly waitingCalls = new Set<string>();
  private readonly waitingParents = new Set<string>();

  private constructor(
    private readonly read: ClaudeCodeRead,
    private readonly firstLine: Map<string, number>,
  ) {}

  /** The import of a whole file (as importClaudeCode), kept to read appended lines into. */
  static *start(lines: readonly JsonLine[], file: string): ImportSteps<ClaudeCodeLive> {
    const { read, source } = yield* readClaudeCode(lines, file);
    const { entries, messageLines, firstLine } = source;
    const live = new ClaudeCodeLive(read, firstLine);
    live.linear = read.active === undefined && messageLines.some((l) => typeof l.value.uuid !== 'string');
    live.resumable = read.active !== undefined || messageLines.length === 0 || live.linear;
    const active = read.active;
    let n = 0;
    for (const l of entries) {
      if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
      live.index(l);
      if (!read.onChain(l)) continue;
      const responseId = assistantMessageId(l);
      if ((l.value.type === 'user' || l.value.type === 'assistant') && active && !active.has(l.value.uuid as string)) {
        if (responseId !== undefined) live.offResponses.add(responseId);
        for (const r of resultIds(l)) live.offResults.add(r);
      }
    }
    for (const l of read.tail) {
      const uuid = l.value.uuid;
      if (typeof uuid === 'string') live.tailUuids.add(uuid);
      // A result read after its call (relinkResults) may follow the last message line: read with the tail, in that order.
      if (keepsSegment(l)) live.resumable = false;
    }
    if (live.linear) {
      // Every line is on the (linear) branch: nothing waits.
      for (const l of read.tail) read.read(read.sink, l);
      read.tail = [];
      live.tailUuids.clear();
    }
    live.leaf = messageLines.at(-1)?.value.uuid as string | undefined;
    if (active && live.leaf !== undefined) {
      const path: Node[] = [];
      for (let node = live.nodes.get(live.leaf); node;) {
        path.push(node);
        const from = node;
        const step = parentStep(
          from.links,
          (u) => live.nodes.has(u),
          () => from.above,
        );
        node = typeof step === 'object' ? live.nodes.get(step.parent) : undefined;
      }
      for (const node of path.reverse()) live.enterChain(node);
    }
    return live;
  }

  /** The import of the lines read so far (the reader goes on afterwards). */
  result(): ImportSteps<ImportResult> {
    return this.read.result(this.read.fork());
  }

  /** One appended line; false: it does not simply extend what was read (the whole file must be imported again). */
  line(l: JsonLine): boolean {
    if (!this.resumable) return false;
    const read = this.read;
    const v = l.value;
    const uuid = typeof v.uuid === 'string' ? v.uuid : undefined;
    if (uuid !== undefined) {
      const first = this.firstLine.get(uuid);
      if (first !== undefined) {
        read.repeats.push(repeatedUuid(read.file, l.line, uuid, first));
        return true;
      }
      // A line a result or a boundary written earlier points to: the whole import reads them in another order.
      if (this.waitingParents.has(uuid)) return false;
    }
    const message = v.type === 'user' || v.type === 'assistant';
    if (message) {
      // Which chain is read: a sub-agent's file is all sidechain.
      const sidechain = this.anyMessage ? read.sidechain && v.isSidechain === true : v.isSidechain === true;
      if (sidechain !== read.sidechain) return false;
    }
    if (v.type === 'assistant') for (const id of callIds(l)) if (this.waitingCalls.has(id)) return false;
    if (keepsSegment(l)) return false;
    this.index(l);
    if (message && read.onChain(l)) {
      if (uuid === undefined) return false;
      if (this.linear) {
        read.read(read.sink, l);
        return true;
      }
      return this.extend(l, uuid);
    }
    if (this.linear) read.read(read.sink, l);
    else {
      read.tail.push(l);
      if (uuid !== undefined && read.onChain(l)) this.tailUuids.add(uuid);
    }
    return true;
  }

  /** Registers a line: its uuid, its node, its calls, the results and links still waiting for their line. */
  private index(l: JsonLine): void {
    const v = l.value;
    const uuid = typeof v.uuid === 'string' ? v.uuid : undefined;
    if (uuid !== undefined) {
      this.firstLine.set(uuid, this.firstLine.get(uuid) ?? l.line);
      this.waitingParents.delete(uuid);
    }
    const message = v.type === 'user' || v.type === 'assistant';
    if (message) this.anyMessage = true;
    const calls = v.type === 'assistant' ? callIds(l) : [];
    for (const id of calls) {
      this.seenCalls.add(id);
      this.waitingCalls.delete(id);
    }
    const results = v.type === 'user' ? resultIds(l) : [];
    for (const r of results) if (!this.seenCalls.has(r)) this.waitingCalls.add(r);
    if (results.length > 0 && typeof v.parentUuid === 'string' && !this.firstLine.has(v.parentUuid)) this.waitingParents.add(v.parentUuid);
    if (!this.read.onChain(l)) return;
    if (uuid !== undefined) {
      const links = {
        parentUuid: v.parentUuid,
        logicalParentUuid: v.logicalParentUuid,
        subtype: v.subtype,
        isCompactSummary: v.isCompactSummary,
      };
      const node: Node = { uuid, links, above: this.leaf, type: v.type, results };
      const responseId = assistantMessageId(l);
      if (responseId !== undefined) node.responseId = responseId;
      this.nodes.set(uuid, node);
      for (const id of calls) if (!this.callOwner.has(id)) this.callOwner.set(id, { uuid, responseId });
      if (message) this.leaf = uuid;
    }
    const logical = v.logicalParentUuid;
    if (v.parentUuid === null && typeof logical === 'string' && !this.nodes.has(logical)) this.waitingParents.add(logical);
  }

  /** A message line of the chain: the new leaf, if its chain reaches the branch and the branch stays whole. */
  private extend(l: JsonLine, uuid: string): boolean {
    const read = this.read;
    const active = read.active;
    const walked: Node[] = [];
    const seen = new Set([uuid]);
    let current = this.nodes.get(uuid) as Node;
    let joins = -1;
    for (;;) {
      const from = current;
      const step = parentStep(
        from.links,
        (u) => this.nodes.has(u),
        () => from.above,
      );
      if (step === 'broken') return false;
      if (step === 'root') {
        if (this.chain.length > 0) return false;
        break;
      }
      const at = this.chainAt.get(step.parent);
      if (at !== undefined) {
        joins = at;
        break;
      }
      if (seen.has(step.parent) || !(this.tailUuids.has(step.parent) || active?.has(step.parent))) return false;
      seen.add(step.parent);
      current = this.nodes.get(step.parent) as Node;
      walked.push(current);
    }
    const self = this.nodes.get(uuid) as Node;
    if (self.responseId !== undefined && this.offResponses.has(self.responseId)) return false;
    for (const id of callIds(l)) if (this.offResults.has(id)) return false;
    // The chain below the join leaves the ancestry; each of its lines must stay on the branch by the other rules.
    const left = this.chain.splice(joins + 1);
    for (const node of left) {
      this.chainAt.delete(node.uuid);
      if (node.responseId !== undefined) this.count(node.responseId, -1);
    }
    for (const node of [...walked.reverse(), self]) this.enterChain(node);
    for (const node of left) if (!this.staysKept(node)) return false;
    const branch = active ?? new Set<string>();
    for (const node of walked) branch.add(node.uuid);
    branch.add(uuid);
    read.active = branch;
    for (const t of read.tail) read.read(read.sink, t);
    read.tail = [];
    this.tailUuids.clear();
    read.read(read.sink, l);
    return true;
  }

  private enterChain(node: Node): void {
    this.chainAt.set(node.uuid, this.chain.length);
    this.chain.push(node);
    if (node.responseId !== undefined) this.count(node.responseId, 1);
  }

  private count(responseId: string, by: number): void {
    const n = (this.onChainResponses.get(responseId) ?? 0) + by;
    if (n === 0) this.onChainResponses.delete(responseId);
    else this.onChainResponses.set(responseId, n);
  }

  /** Off the ancestry, a line stays on the branch as a line of a response on it, or as results of its calls. */
  private staysKept(node: Node): boolean {
    const responseOnChain = (id: string | undefined): boolean => id !== undefined && this.onChainResponses.has(id);
    if (node.type === 'assistant') return responseOnChain(node.responseId);
    if (node.type !== 'user') return false;
    return node.results.some((r) => {
      const owner = this.callOwner.get(r);
      return owner !== undefined && (this.chainAt.has(owner.uuid) || responseOnChain(owner.responseId));
    });
  }
}

function callIds(l: JsonLine): string[] {
  return blockIds(l.value, 'tool_use');
}

function resultIds(l: JsonLine): string[] {
  return l.value.type === 'user' ? blockIds(l.value, 'tool_result') : [];
}

/** A compact boundary that keeps a segment: which lines it keeps is read from the whole file. */
function keepsSegment(l: JsonLine): boolean {
  const meta = l.value.compactMetadata;
  return l.value.type === 'system' && isObject(meta) && meta.preservedSegment !== undefined && meta.preservedSegment !== null;
}

// A Claude Code file read as it streams in, in one pass, holding neither every parsed line nor their
// links. Which lines are on the current branch and in which order to read them are questions about the
// whole file (the branch is the ancestry of the last message line), so importClaudeCode keeps every line
// for its passes. Nearly every file is one linear main chain written in reading order, though, and that
// can be checked line by line: this reads each line into the importer as it arrives, as importClaudeCode
// would read it if the file is such a chain, and checks as it goes (LinearCheck) that it is. When it
// is, the lines were read exactly as importClaudeCode reads them (same lines, same order, same sink).
// When it is not (a rewind or an edit left an abandoned branch, a tool result written before its call, a
// compaction that keeps a segment, a sub-agent's own file, a repeated line, an importer error, which the
// whole read reports in its place), result() says so and the caller reads the file again with every line kept.
import { ClaudeCodeRead } from './claudeCode';
import { blockIds, messageBlocks, parentStep } from './claudeCodeBranch';
import { ChurnSet } from './churnMap';
import { isObject, type Json, type JsonLine } from './json';
import type { ImportSteps } from './steps';
import type { ImportResult } from './types';

export class ClaudeCodeStream {
  /** The uuids seen (a Set, not the map of their lines importClaudeCode keeps: a third smaller on a long file). */
  private readonly seen = new Set<string>();
  private readonly check = new LinearCheck();
  /** The lines read so far, as if the file were one linear main chain; undefined once that is ruled out. */
  private speculation: ClaudeCodeRead | undefined;

  constructor(private readonly file: string) {
    this.speculation = new ClaudeCodeRead(file, false, undefined, new Map(), [], []);
  }

  /** The file is not one the one pass can read (result() will say so): the rest of it need not be read. */
  get givenUp(): boolean {
    return this.speculation === undefined;
  }

  /** The next line of the file (in file order). */
  line(l: JsonLine): void {
    const read = this.speculation;
    if (!read) return;
    const uuid = l.value.uuid;
    if (typeof uuid === 'string') {
      // A repeated line (a resumed session): the whole read skips it with a warning naming its first line.
      if (this.seen.has(uuid)) {
        this.speculation = undefined;
        return;
      }
      this.seen.add(uuid);
    }
    if (!this.check.line(l.value, (u) => this.seen.has(u))) {
      this.speculation = undefined;
      return;
    }
    try {
      read.read(read.sink, l);
    } catch {
      // The whole read reports it, after every line has parsed (a line that does not parse comes first).
      this.speculation = undefined;
    }
  }

  /** The import, or undefined when the file must be read again with every line kept (see the file comment). */
  *result(): ImportSteps<ImportResult | undefined> {
    const speculation = this.speculation;
    if (!speculation || !this.check.holds()) return undefined;
    // What importClaudeCode's passes give for such a file: the main chain, every line on the branch, no
    // segment kept, nothing moved, no repeated line; no warnings of their own.
    const read = new ClaudeCodeRead(this.file, false, undefined, new Map(), [], []);
    read.sink = speculation.sink;
    return yield* read.result(read.sink);
  }
}

/**
 * Whether the lines given so far (first occurrences, in file order) are read by importClaudeCode in file
 * order, as the main chain, every line on the current branch (claudeCode.ts planClaudeCode: activeBranch,
 * preservedSegments, relinkResults). Sufficient, not necessary: a file it rules out is read the whole way.
 * - The main chain is one path: each main-chain line with a uuid after the first has the one before it as
 *   its parent (parentStep). Then the ancestry of the last message line is every main-chain line up to it
 *   (whatever the first line's link: a root, a broken link or a cycle, which all keep every line), and no
 *   line read only on the branch (an attachment, a compact boundary, with a uuid) may follow it.
 * - Some message line is on the main chain (or there is none): otherwise the file is a sub-agent's own.
 * - No compact boundary records a preservedSegment.
 * - No tool result is written before the line it answers (relinkResults): a result whose call is not open
 *   waits in `early`, and a call with that id met later rules the file out; a parentUuid not seen yet waits
 *   in `waitingParents`, and a line with that uuid met later rules it out.
 * Its sets hold what is unusual (calls not answered yet, early results), not every line.
 */
class LinearCheck {
  private ok = true;
  /** The uuid of the last main-chain line with a uuid that is read only on the branch (a message, an attachment, a compact boundary). */
  private last: string | undefined;
  /** The main-chain lines after it whose ancestry reaches it (lines read whatever the branch: progress, system…). */
  private readonly between = new ChurnSet<string>();
  private messages = 0;
  private mainMessages = 0;
  /** A branch-only line (attachment, compact boundary) came after the last message line of the main chain. */
  private branchOnlyAfter = false;
  /** The last main-chain message line is off the path (the result of a parallel call). */
  private leafLast = false;
  /** The last main-chain message line (its uuid): where a compact boundary without its logical parent continues from. */
  private lastMessage: string | undefined;
  /** Calls of the main-chain assistant lines on the path that no result on the main chain answered yet (ChurnSets, as `between`: they churn line by line). */
  private readonly pathCalls = new ChurnSet<string>();
  private readonly openCalls = new ChurnSet<string>();
  private readonly early = new Set<string>();
  private readonly waitingParents = new Set<string>();

  holds(): boolean {
    return this.ok && !this.branchOnlyAfter && !this.leafLast && (this.messages === 0 || this.mainMessages > 0);
  }

  /** The next line; false: the file is ruled out. `seen`: whether a line so far (this one included) had the uuid. */
  line(v: Json, seen: (uuid: string) => boolean): boolean {
    this.ok = this.ok && this.onPath(v, seen) && this.inOrder(v, seen);
    return this.ok;
  }

  private onPath(v: Json, seen: (uuid: string) => boolean): boolean {
    const uuid = v.uuid;
    const type = v.type;
    const message = type === 'user' || type === 'assistant';
    const boundary = type === 'system' && v.subtype === 'compact_boundary';
    if (boundary && isObject(v.compactMetadata)) {
      const segment = v.compactMetadata.preservedSegment;
      if (segment !== undefined && segment !== null) return false;
    }
    if (message) this.messages++;
    if (typeof uuid === 'string' && this.waitingParents.has(uuid)) return false;
    if (v.isSidechain === true) return true;
    const above = this.lastMessage;
    if (message) {
      this.mainMessages++;
      this.lastMessage = typeof uuid === 'string' ? uuid : undefined;
    }
    if (typeof uuid !== 'string') return true;
    const branchOnly = type === 'attachment' || boundary;
    if (message) this.branchOnlyAfter = false;
    else if (branchOnly) this.branchOnlyAfter = true;
    const last = this.last;
    if (last === undefined) {
      if (message || branchOnly) this.last = uuid;
      return true;
    }
    const has = (u: string): boolean => u === last || this.between.has(u);
    const logical = v.logicalParentUuid;
    if (v.parentUuid === null && typeof logical === 'string' && !has(logical)) {
      // Its logical parent must be no line at all (then the line above it is): not an earlier line, nor a later one.
      if (seen(logical)) return false;
      this.waitingParents.add(logical);
    }
    const step = parentStep(v, has, () => above);
    const onPath = typeof step === 'object' && has(step.parent);
    if (!message && !branchOnly) {
      // Read whatever the branch (progress, system lines…): on the way to the next line that is not, or a leaf.
      if (onPath) this.between.add(uuid);
      return true;
    }
    const calls = type === 'assistant' ? blockIds(v, 'tool_use') : [];
    const results = type === 'user' ? blockIds(v, 'tool_result') : [];
    // A message line off the path may not be the last one (the branch is the ancestry of the last).
    if (message) this.leafLast = !onPath;
    if (!onPath) {
      // The result of a parallel call, hung off the line of its call: on the branch as the result of a call on it.
      return results.some((id) => this.pathCalls.has(id));
    }
    for (const id of results) this.pathCalls.delete(id);
    for (const id of calls) this.pathCalls.add(id);
    this.last = uuid;
    this.between.clear();
    return true;
  }

  private inOrder(v: Json, seen: (uuid: string) => boolean): boolean {
    let results = false;
    for (const b of messageBlocks(v)) {
      if (v.type === 'assistant' && b.type === 'tool_use' && typeof b.id === 'string') {
        if (this.early.has(b.id)) return false;
        this.openCalls.add(b.id);
      } else if (v.type === 'user' && b.type === 'tool_result' && typeof b.tool_use_id === 'string') {
        results = true;
        if (!this.openCalls.delete(b.tool_use_id)) this.early.add(b.tool_use_id);
      }
    }
    if (results && typeof v.parentUuid === 'string' && !seen(v.parentUuid)) this.waitingParents.add(v.parentUuid);
    return true;
  }
}

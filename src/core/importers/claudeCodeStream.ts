// A Claude Code file read as it streams in, in one pass, without holding every parsed line. Which lines
// are on the current branch and in which order to read them are questions about the whole file (the
// branch is the ancestry of the last message line), so the import keeps only each line's links
// (claudeCodeLinks) for those passes, and reads each line into the importer as it arrives on the
// assumption that the file is what nearly every file is: one linear main chain, read in file order.
// Once every line is in, the passes over the links check that assumption; when it held, the lines were
// read exactly as importClaudeCode reads them (same lines, same order, same sink). When it did not (a
// rewind or an edit left an abandoned branch, a tool result written before its call, a compaction that
// keeps a segment, a sub-agent's own file, or an importer error, which the whole read reports in its
// place), result() says so and the caller reads the file again with every line kept.
import { FirstOccurrences, LINK_FIELDS, planFromEntries, ClaudeCodeRead } from './claudeCode';
import { isObject, type Json, type JsonLine } from './json';
import { LOOP_ITEMS_PER_STEP, type ImportSteps } from './steps';
import type { ImportResult } from './types';

export class ClaudeCodeStream {
  private readonly firsts: FirstOccurrences;
  /** The lines read so far, as if the file were one linear main chain; undefined once a line did not read. */
  private speculation: ClaudeCodeRead | undefined;

  constructor(private readonly file: string) {
    this.firsts = new FirstOccurrences(file);
    this.speculation = new ClaudeCodeRead(file, false, undefined, new Map(), [], []);
  }

  /** The next line of the file (in file order). */
  line(l: JsonLine): void {
    if (!this.firsts.add({ line: l.line, value: claudeCodeLinks(l.value) })) return;
    const read = this.speculation;
    if (!read) return;
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
    if (!speculation) return undefined;
    const { read, source, order } = yield* planFromEntries(this.firsts, this.file);
    if (order !== source.entries || !(yield* readAsSpeculated(read, source.entries))) return undefined;
    // The plan's warnings (repeated uuids, the passes) with what the lines read into.
    read.sink = speculation.sink;
    return yield* read.result(read.sink);
  }
}

/**
 * Whether a linear read of the main chain read the lines as `read` reads them: the main chain, no
 * compaction keeping a segment, and every line whose reading depends on the branch on it.
 */
function* readAsSpeculated(read: ClaudeCodeRead, entries: readonly JsonLine[]): ImportSteps<boolean> {
  if (read.sidechain || read.keepsSegments) return false;
  if (!read.active) return true;
  let n = 0;
  for (const l of entries) {
    if (++n % LOOP_ITEMS_PER_STEP === 0) yield;
    const type = l.value.type;
    const onBranchOnly =
      type === 'user' || type === 'assistant' || type === 'attachment' || (type === 'system' && l.value.subtype === 'compact_boundary');
    if (onBranchOnly && read.onChain(l) && !read.onBranch(l)) return false;
  }
  return true;
}

/**
 * What the passes over a whole file read of a line (planClaudeCode): its type and links, and of a message
 * its id and the ids of its tool calls and results. A compact boundary is kept whole (its preservedSegment).
 */
export function claudeCodeLinks(value: Json): Json {
  if (value.type === 'system' && value.subtype === 'compact_boundary') return value;
  const links: Json = {};
  for (const k of LINK_FIELDS) if (k in value) links[k] = value[k];
  if ((value.type === 'user' || value.type === 'assistant') && isObject(value.message)) {
    const message = messageLinks(value.message);
    if (message) links.message = message;
  }
  return links;
}

function messageLinks(message: Json): Json | undefined {
  const out: Json = {};
  let any = false;
  if ('id' in message) {
    out.id = message.id;
    any = true;
  }
  if (Array.isArray(message.content)) {
    const blocks: Json[] = [];
    for (const b of message.content) {
      if (!isObject(b)) continue;
      if (b.type === 'tool_use') blocks.push({ type: b.type, id: b.id });
      else if (b.type === 'tool_result') blocks.push({ type: b.type, tool_use_id: b.tool_use_id });
    }
    if (blocks.length > 0) {
      // A copy of its own length: an array grown by push keeps spare slots (over a hundred bytes a line).
      out.content = blocks.slice();
      any = true;
    }
  }
  return any ? out : undefined;
}

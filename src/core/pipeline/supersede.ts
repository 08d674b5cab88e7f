// Superseded tool results (issue 25): a result that a later call makes redundant becomes a short
// pointer before plain age-based clearing: the same file read again (the whole file, or a range
// covering the earlier one), the file edited or written later (the earlier read is stale), or the
// same command (search, listing) run again. A later call that failed supersedes nothing; a re-read
// that only says the file is unchanged supersedes nothing. The first later call that supersedes a
// result is the one its pointer names. Fed in conversation order (tool_use before its tool_result),
// so the pure strategy and the incremental micro-compactor see exactly the same supersessions.
import { toolResultText, type Message, type ToolResultBlock, type ToolUseBlock } from '../conversation/conversation';
import type { MessageTokenCounter } from '../counting/tokens';
import { previousToolPlaceholder, replacedWithPlaceholders, resultSize, withToolResultsReplaced } from '../strategies/common';
import type { MicroCompactSettings } from './microBatch';
import type { ReplacementCache } from './replacementCache';
import { callEffect, callWorkdir, type CallEffect, type LineRange } from './supersedeCalls';

export interface Supersession {
  /** The tool_use id of the later call. */
  by: string;
  /** Its number among the conversation's tool calls (1-based). */
  call: number;
  /** How: 'read again', 'edited' or 'run again'. */
  how: 'read again' | 'edited' | 'run again';
  /** What happened, for people (the inspector): e.g. "src/a.ts was read again in call 57". */
  what: string;
}

/**
 * The text a superseded result is replaced with: "[superseded: read again in call 57]". The file or
 * command is in the kept tool_use's input, so the pointer does not repeat it: a pointer costs about
 * what the "[Previous: used <tool>]" placeholder does (a longer one measured dearer on the replay).
 */
export function supersededPointer(s: Supersession): string {
  return `[superseded: ${s.how} in call ${s.call}]`;
}

const LABEL_CHARS = 60;

function shortPath(path: string): string {
  return path.length <= LABEL_CHARS ? path : `…${path.slice(path.length - LABEL_CHARS + 1)}`;
}

function shortCommand(label: string): string {
  const line = label.trim().split('\n')[0];
  const cut = line.length > LABEL_CHARS || label.trim().includes('\n');
  return `\`${cut ? `${line.slice(0, LABEL_CHARS - 1)}…` : line}\``;
}

function covers(later: LineRange, earlier: LineRange): boolean {
  if (later === null) return true;
  if (earlier === null) return false;
  return later.start <= earlier.start && later.end >= earlier.end;
}

/**
 * Did the call fail (or not finish)? is_error; a Codex exec_command that exited non-zero or is still
 * running; a Codex shell output whose metadata has a non-zero exit code.
 */
export function failedResult(block: ToolResultBlock): boolean {
  if (block.is_error === true) return true;
  const head = toolResultText(block).slice(0, 400);
  const exited = /Process exited with code (\d+)/.exec(head) ?? /"exit_code":\s*(\d+)/.exec(head) ?? /^Exit code: (\d+)/m.exec(head);
  if (exited) return Number(exited[1]) !== 0;
  return /^Process running with session ID/m.test(head);
}

/** A re-read that returns only a note (Claude Code: "File unchanged since last read") supersedes nothing. */
function unchangedNote(block: ToolResultBlock): boolean {
  const text = toolResultText(block);
  return text.length < 400 && /\bunchanged\b/i.test(text);
}

interface Open {
  id: string;
  range: LineRange;
}

export class SupersedeTracker {
  private calls = 0;
  private cwd: string | undefined;
  private readonly pending = new Map<string, { call: number; effect: CallEffect | null }>();
  /** Results that a later call may still supersede: reads by path, runs by key. */
  private readonly reads = new Map<string, Open[]>();
  private readonly runs = new Map<string, string[]>();
  private readonly found = new Map<string, Supersession>();

  /** The supersessions so far, by the superseded result's tool_use_id. */
  get superseded(): ReadonlyMap<string, Supersession> {
    return this.found;
  }

  /** The one read path ending in `/relative` (a patch's path when the folder guessed is not its own), if exactly one. */
  private onlyReadEndingIn(relative: string | undefined): string | undefined {
    if (relative === undefined) return undefined;
    const found = [...this.reads.keys()].filter((p) => p.endsWith(`/${relative}`));
    return found.length === 1 ? found[0] : undefined;
  }

  use(block: ToolUseBlock): void {
    this.calls++;
    const effect = callEffect(block.name, block.input, this.cwd);
    this.cwd = callWorkdir(block.name, block.input) ?? this.cwd;
    this.pending.set(block.id, { call: this.calls, effect });
  }

  /** Records a result; returns the ids of earlier results it supersedes (now in `superseded`). */
  result(block: ToolResultBlock): string[] {
    const call = this.pending.get(block.tool_use_id);
    if (!call?.effect) return [];
    this.pending.delete(block.tool_use_id);
    const e = call.effect;
    const id = block.tool_use_id;
    const failed = failedResult(block);
    const out: string[] = [];
    const mark = (ids: readonly string[], subject: string, how: Supersession['how']) => {
      for (const old of ids) {
        this.found.set(old, { by: id, call: call.call, how, what: `${subject} was ${how} in call ${call.call}` });
        out.push(old);
      }
    };
    if (e.kind === 'read') {
      const open = this.reads.get(e.path) ?? [];
      const gone = failed || unchangedNote(block) ? [] : open.filter((o) => covers(e.range, o.range));
      mark(
        gone.map((o) => o.id),
        shortPath(e.path),
        'read again',
      );
      this.reads.set(e.path, [...open.filter((o) => !gone.includes(o)), { id, range: e.range }]);
    } else if (e.kind === 'write') {
      if (!failed)
        e.paths.forEach((resolved, i) => {
          const path = this.reads.has(resolved) ? resolved : (this.onlyReadEndingIn(e.relative?.[i]) ?? resolved);
          mark(
            (this.reads.get(path) ?? []).map((o) => o.id),
            shortPath(path),
            'edited',
          );
          this.reads.delete(path);
        });
    } else {
      const open = this.runs.get(e.key) ?? [];
      if (!failed) mark(open, shortCommand(e.label), 'run again');
      this.runs.set(e.key, failed ? [...open, id] : [id]);
    }
    return out;
  }
}

/** Every supersession in `messages`, fed in order (tool results travel in user messages). */
export function supersessionsOf(messages: readonly Message[]): ReadonlyMap<string, Supersession> {
  const t = new SupersedeTracker();
  for (const m of messages) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type === 'tool_use' && m.role === 'assistant') t.use(b as ToolUseBlock);
      else if (b.type === 'tool_result' && m.role === 'user') t.result(b as ToolResultBlock);
    }
  }
  return t.superseded;
}

/** Is a superseded result worth its pointer: from an eligible tool, over `minChars` and longer than the pointer? */
export function isPointerCandidate(
  block: ToolResultBlock,
  s: Supersession,
  names: ReadonlyMap<string, string>,
  settings: Pick<MicroCompactSettings, 'minChars' | 'tools'>,
): boolean {
  if (settings.tools && settings.tools.length > 0 && !settings.tools.includes(names.get(block.tool_use_id) ?? '')) return false;
  const pointer = supersededPointer(s);
  return resultSize(block) > Math.max(settings.minChars, pointer.length) && toolResultText(block) !== pointer;
}

const blockTokens = new WeakMap<MessageTokenCounter, WeakMap<ToolResultBlock, number>>();

/** Tokens of a result block as a request carries it (counted once per block and counter). */
export function resultTokens(block: ToolResultBlock, counter: MessageTokenCounter): number {
  let byBlock = blockTokens.get(counter);
  if (!byBlock) blockTokens.set(counter, (byBlock = new WeakMap()));
  let n = byBlock.get(block);
  if (n === undefined) {
    n = counter.countMessage({ id: '', role: 'user', content: [block] }) - counter.countMessage({ id: '', role: 'user', content: [] });
    byBlock.set(block, n);
  }
  return n;
}

/** Tokens of a pointer as a request carries it (a batch's clearable tokens: its saving plus its replacements). */
export function pointerTokens(s: Supersession, counter: MessageTokenCounter): number {
  const block: ToolResultBlock = { type: 'tool_result', tool_use_id: '', content: supersededPointer(s) };
  return counter.countMessage({ id: '', role: 'user', content: [block] }) - counter.countMessage({ id: '', role: 'user', content: [] });
}

/**
 * A copy of `message` with the results `ids` replaced: those in `pointers` by their pointer (the note
 * says what superseded them), the others by the "[Previous: used <tool>]" placeholder.
 */
export function replacedInView(
  message: Message,
  ids: ReadonlySet<string>,
  names: ReadonlyMap<string, string>,
  pointers: ReadonlyMap<string, Supersession>,
  cache: ReplacementCache | undefined,
): Message {
  const mine = [...ids].filter((id) => pointers.has(id));
  if (mine.length === 0) return replacedWithPlaceholders(message, ids, names, cache);
  const make = (): Message => {
    const copy = withToolResultsReplaced(message, ids, names, (name, b) => {
      const s = pointers.get(b.tool_use_id);
      return s ? supersededPointer(s) : previousToolPlaceholder(name);
    });
    const results = copy.truncated!.results.map((r) => {
      const s = ids.has(r.toolUseId) ? pointers.get(r.toolUseId) : undefined;
      return s ? { ...r, superseded: s.what } : r;
    });
    return { ...copy, truncated: { results } };
  };
  if (!cache) return make();
  const key = `superseded:${[...ids].map((id) => (pointers.has(id) ? `${id}=${pointers.get(id)!.what}` : id)).join('\u0000')}`;
  return cache.get(message, key, make);
}

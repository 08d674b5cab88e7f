// Codex CLI rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, and the older un-enveloped
// rollout lines): the context the model saw, and the history before it.
//
// The rollout is replayed the way Codex rebuilds a resumed thread: response items append to the context;
// a `compacted` line replaces it with its `replacement_history` (older rollouts: with the window's user
// prompts and the summary in `message`), and becomes a RecordedCompaction whose `before` is the context
// it replaced; a `thread_rolled_back` event drops the last `num_turns` user turns (their prompts are kept in
// ImportResult.rolledBackPrompts: typed, though no longer in the context); `token_count` events
// attach the recorded usage to the assistant message of their call (see codexUsage.ts); `turn_context`
// lines name the model. Items are converted by codexItems.ts; context injections become artefacts
// (mapping in codexContext.ts). Every skipped line is a warning naming its line.
import { isTurnStart, type Message, type RecordedUsage } from '../conversation/conversation';
import { Assembler } from './assembler';
import { feedCodexItem, REDACTED_SUMMARY_TEXT, type CodexFeed } from './codexItems';
import { classifyCodexUserText } from './codexContext';
import { CodexUsageReader } from './codexUsage';
import { CODEX_ENVELOPE_TYPES } from './detect';
import { describe, failAt, isObject, timestampMs, type Json, type JsonLine } from './json';
import type { ImportResult, RecordedCompaction } from './types';
import { LINES_PER_STEP, runSteps, type ImportSteps } from './steps';

/** One thing in the current context, in order, before it is assembled into messages. */
type Entry =
  | { kind: 'item'; line: number; item: Json; prefix: string; id: string; createdAt?: number }
  | { kind: 'summary'; line: number; text: string; id: string; createdAt?: number }
  | { kind: 'usage'; line: number; usage: RecordedUsage };

/** The placeholder for a summary the API returned encrypted (remote compaction): unreadable in the rollout. */
export const ENCRYPTED_SUMMARY_TEXT =
  '[Codex compaction summary: encrypted by the API and not readable in the recording. The model saw the summary here.]';

export function importCodexRollout(lines: readonly JsonLine[], file: string): ImportResult {
  return runSteps(codexRolloutSteps(lines, file));
}

/** importCodexRollout as steps (see steps.ts). */
export function* codexRolloutSteps(lines: readonly JsonLine[], file: string): ImportSteps<ImportResult> {
  const replay = new CodexReplay(file);
  let handled = 0;
  for (const jsonLine of lines) {
    replay.line(jsonLine);
    if (++handled % LINES_PER_STEP === 0) yield;
  }
  return replay.snapshot();
}

/** A rollout replayed line by line; snapshot() is the import of the lines so far, and the replay can go on. */
export class CodexReplay {
  private readonly warnings: string[] = [];
  private readonly skipped = new Map<string, { count: number; line: number }>();
  private readonly compactions: RecordedCompaction[] = [];
  private readonly usageReader = new CodexUsageReader();
  /** Items since the last compaction (or the start). */
  private entries: Entry[] = [];
  /** The last compaction's replacement, as messages: the head of the current context. */
  private head: Message[] = [];
  /** Tokens of the last recorded call since the last compaction (the compaction's preTokens). */
  private lastCallTokens: number | null = null;
  private model: string | undefined;
  private contextWindow: number | undefined;
  /** Prompts that thread_rolled_back events removed, in the order typed. */
  private readonly rolledBack: Message[] = [];
  /**
   * The entries since the last compaction, assembled as they come. What assembling them reports is held
   * apart (a rollback takes entries out again) and reported with the rest when the stretch is closed.
   */
  private live!: CodexAssembly;
  private liveWarnings: string[] = [];
  private liveSkipped = new Map<string, { count: number; line: number }>();

  constructor(private readonly file: string) {
    this.restartLive();
  }

  line({ line, value }: JsonLine): void {
    const fail = failAt(this.file, line);
    const createdAt = timestampMs(value.timestamp);
    if (value.record_type !== undefined) return; // legacy state marker
    const type = value.type;
    if (typeof type === 'string' && CODEX_ENVELOPE_TYPES.has(type)) {
      if (type === 'session_meta') return;
      if (!isObject(value.payload)) return fail('payload', `expected an object, got ${describe(value.payload)}`);
      const payload = value.payload;
      if (type === 'turn_context') {
        if (typeof payload.model === 'string' && payload.model !== '') this.model = payload.model;
      } else if (type === 'event_msg') {
        this.event(payload, line);
      } else if (type === 'compacted') {
        this.compact(payload, line, createdAt);
      } else {
        this.add({ kind: 'item', line, item: payload, prefix: 'payload', id: `codex_${line}`, createdAt });
      }
    } else if (typeof type === 'string' && !('payload' in value)) {
      this.add({ kind: 'item', line, item: value, prefix: '', id: `codex_${line}`, createdAt }); // legacy bare item
    } else if (type === undefined && typeof value.id === 'string' && typeof value.timestamp === 'string') {
      return; // legacy session meta line
    } else {
      this.noteSkipped(`line(s) of unknown line type ${describe(type)}`, line);
    }
  }

  /** The import of the lines replayed so far (the replay is unchanged: more lines can follow). */
  snapshot(): ImportResult {
    const closing: string[] = [];
    const messages = [...this.head, ...this.live.messages(false, closing)];
    const warnings = [...this.warnings, ...this.liveWarnings, ...closing];
    const skipped = new Map([...this.skipped].map(([what, seen]) => [what, { ...seen }]));
    mergeSkipped(skipped, this.liveSkipped);
    for (const [what, { count, line }] of skipped) warnings.push(`${this.file}:${line}: skipped ${count} ${what}`);
    if (messages.length === 0 && this.compactions.length === 0) warnings.push(`${this.file}: no conversation messages found`);
    const result: ImportResult = { format: 'codex-rollout-jsonl', messages, compactions: [...this.compactions], warnings };
    if (this.contextWindow !== undefined) result.contextWindow = this.contextWindow;
    if (this.model !== undefined) result.model = this.model;
    if (this.rolledBack.length > 0) result.rolledBackPrompts = [...this.rolledBack];
    return result;
  }

  private add(entry: Entry): void {
    this.entries.push(entry);
    this.live.add(entry);
  }

  /** A new stretch assembled from this.entries (at the start, after a compaction, after a rollback). */
  private restartLive(): void {
    this.liveWarnings = [];
    this.liveSkipped = new Map();
    const skipped = this.liveSkipped;
    this.live = new CodexAssembly(this.file, this.liveWarnings, (what, line) => noteSkipped(skipped, what, line));
    for (const entry of this.entries) this.live.add(entry);
  }

  /** The stretch's messages, what assembling it reported now reported; the stretch starts anew (empty). */
  private closeLive(): Message[] {
    const messages = this.live.messages(true, this.liveWarnings);
    for (const w of this.liveWarnings) this.warnings.push(w);
    mergeSkipped(this.skipped, this.liveSkipped);
    this.entries = [];
    this.restartLive();
    return messages;
  }

  /** Events are the UI's mirror of the items; three of them change the context. */
  private event(payload: Json, line: number): void {
    if (payload.type === 'token_count') {
      const { call, contextWindow } = this.usageReader.read(payload, this.model, (what) =>
        this.warnings.push(`${this.file}:${line}: token_count ${what}`),
      );
      if (contextWindow !== undefined) this.contextWindow = contextWindow;
      if (!call) return;
      this.add({ kind: 'usage', line, usage: call.usage });
      this.lastCallTokens = call.totalTokens;
    } else if (payload.type === 'thread_rolled_back') {
      const turns = payload.num_turns;
      if (typeof turns !== 'number' || !Number.isInteger(turns) || turns < 0) {
        failAt(this.file, line)('payload.num_turns', `expected a non-negative integer, got ${describe(turns)}`);
      }
      this.rollBack(turns as number, line);
    }
  }

  /**
   * Drops the last `turns` user turns, as Codex does: the context is cut at the `turns`-th genuine user
   * prompt from the end (all of them: cut at the first); what precedes the first prompt stays.
   */
  private rollBack(turns: number, line: number): void {
    if (turns === 0) return;
    const starts = this.entries.flatMap((e, i) => (isPromptEntry(e) ? [i] : []));
    const headStarts = this.head.flatMap((m, i) => (isTurnStart(m) ? [i] : []));
    const available = starts.length + headStarts.length;
    const where = `${this.file}:${line}: thread rolled back ${turns} turn(s)`;
    if (available === 0) {
      this.warnings.push(`${where}, but the context holds no user turn; nothing removed`);
      return;
    }
    if (turns > available) this.warnings.push(`${where}, but the context held only ${available}: all of them removed`);
    // The cut falls in this window's items, or (more turns than they hold) in the compacted head.
    const inHead = turns > starts.length && headStarts.length > 0;
    const cut = inHead ? 0 : turns > starts.length ? starts[0] : starts[starts.length - turns];
    const removed = this.entries.slice(cut).filter((e) => e.kind !== 'usage');
    this.entries = this.entries.slice(0, cut);
    let fromHead = 0;
    const rolledBack: Message[] = [];
    if (inHead) {
      const headCut = headStarts[Math.max(0, headStarts.length - (turns - starts.length))];
      fromHead = this.head.length - headCut;
      for (const m of this.head.slice(headCut)) if (isTurnStart(m)) rolledBack.push(m);
      this.head = this.head.slice(0, headCut);
    }
    // What the person typed in the removed turns: still typed (ImportResult.rolledBackPrompts).
    for (const m of this.assemble(removed.filter(isPromptEntry))) if (isTurnStart(m)) rolledBack.push(m);
    for (const m of rolledBack) this.rolledBack.push(m);
    this.restartLive();
    const span = removed.length > 0 ? ` (lines ${removed[0].line}-${removed[removed.length - 1].line})` : '';
    const head = fromHead > 0 ? ` and ${fromHead} message(s) of the compacted context` : '';
    this.warnings.push(`${where}: ${removed.length} item(s)${span}${head} left the context`);
  }

  private compact(payload: Json, line: number, createdAt: number | undefined): void {
    const before = [...this.head, ...this.closeLive()];
    let replacement: Message[];
    if (Array.isArray(payload.replacement_history)) {
      replacement = this.replacementHistory(payload.replacement_history, payload.message, line, createdAt);
    } else if (typeof payload.message === 'string') {
      replacement = this.legacyReplacement(before, payload.message, line, createdAt);
    } else {
      return failAt(this.file, line)(
        'payload.replacement_history',
        `expected an array of items, got ${describe(payload.replacement_history)}`,
      );
    }
    const trigger = payload.trigger === 'manual' ? 'manual' : 'auto';
    const compaction: RecordedCompaction = {
      source: 'codex-rollout-jsonl',
      trigger,
      preTokens: this.lastCallTokens,
      line,
      before,
      summary: replacement,
    };
    if (createdAt !== undefined) compaction.at = createdAt;
    this.compactions.push(compaction);
    this.head = replacement;
    this.lastCallTokens = null;
  }

  /**
   * The items that replaced the context. An encrypted summary item (`compaction`, `compaction_summary`)
   * becomes a placeholder summary in its place; a summary message (Codex's summary prefix) is the summary.
   */
  private replacementHistory(history: unknown[], message: unknown, line: number, createdAt: number | undefined): Message[] {
    const entries: Entry[] = history.map((item, i): Entry => {
      const prefix = `payload.replacement_history[${i}]`;
      if (!isObject(item)) return failAt(this.file, line)(prefix, `expected an item object, got ${describe(item)}`);
      const id = `codex_${line}_h${i}`;
      if (item.type === 'compaction' || item.type === 'compaction_summary') {
        const redacted = typeof item.encrypted_content === 'string' && /^REDACTED\b/.test(item.encrypted_content);
        this.warnings.push(
          `${this.file}:${line}: ${prefix}: the compaction summary is ${redacted ? 'redacted in the recording' : 'encrypted'}; kept as a placeholder`,
        );
        return { kind: 'summary', line, text: redacted ? REDACTED_SUMMARY_TEXT : ENCRYPTED_SUMMARY_TEXT, id, createdAt };
      }
      return { kind: 'item', line, item, prefix, id, createdAt };
    });
    const messages = this.assemble(entries);
    if (messages.some((m) => m.synthetic === 'summary')) return messages;
    if (typeof message === 'string' && message.trim() !== '') {
      const summary: Message = { id: `codex_${line}`, role: 'user', content: message, synthetic: 'summary' };
      if (createdAt !== undefined) summary.createdAt = createdAt;
      return [...messages, summary];
    }
    this.warnings.push(
      `${this.file}:${line}: replacement_history holds no summary item (${messages.length} message(s): earlier prompts and instructions); ` +
        'imported as recorded',
    );
    return messages;
  }

  /** Older rollouts: `compacted` with only `message`; Codex rebuilt the context as the user prompts plus the summary. */
  private legacyReplacement(before: Message[], summary: string, line: number, createdAt: number | undefined): Message[] {
    const prompts = before.filter(isTurnStart).map((m, i): Message => ({ ...m, id: `codex_${line}_u${i}` }));
    if (summary.trim() === '') {
      this.warnings.push(`${this.file}:${line}: compacted line with an empty summary and no replacement_history`);
      return prompts;
    }
    const message: Message = { id: `codex_${line}`, role: 'user', content: summary, synthetic: 'summary' };
    if (createdAt !== undefined) message.createdAt = createdAt;
    return [...prompts, message];
  }

  /** Entries -> messages (API-valid: tool pairs intact), with artefact kinds and recorded usage set. */
  private assemble(entries: readonly Entry[]): Message[] {
    const assembly = new CodexAssembly(this.file, this.warnings, (what, line) => this.noteSkipped(what, line));
    for (const entry of entries) assembly.add(entry);
    return assembly.messages(true, this.warnings);
  }

  private noteSkipped(what: string, line: number): void {
    noteSkipped(this.skipped, what, line);
  }
}

/** Entries assembled into messages as they come, with the artefact kind and the recorded usage of each. */
class CodexAssembly {
  private readonly assembler: Assembler;
  private readonly feed: CodexFeed;
  private readonly usageOf = new Map<string, { usage: RecordedUsage; line: number }>();
  /** The message the last model output went into: the next recorded usage is its call's. */
  private output: string | undefined;

  constructor(
    private readonly file: string,
    private readonly warnings: string[],
    private readonly noteSkipped: (what: string, line: number) => void,
  ) {
    this.assembler = new Assembler(file, warnings);
    this.feed = { file, assembler: this.assembler, warnings, artefacts: new Map(), noteSkipped };
  }

  add(entry: Entry): void {
    if (entry.kind === 'item') {
      this.output =
        feedCodexItem(this.feed, entry.item, entry.prefix, entry.line, entry.id, failAt(this.file, entry.line), entry.createdAt) ??
        this.output;
    } else if (entry.kind === 'summary') {
      this.assembler.prompt(entry.text, entry.line, entry.id, entry.createdAt, 'summary');
    } else if (this.output === undefined) {
      this.noteSkipped('recorded model call(s) with no imported output (reasoning only): usage not attached', entry.line);
    } else {
      const earlier = this.usageOf.get(this.output);
      if (earlier)
        this.warnings.push(
          `${this.file}:${entry.line}: two recorded calls produced one message (${this.output}); the usage of line ${earlier.line} is replaced`,
        );
      this.usageOf.set(this.output, { usage: entry.usage, line: entry.line });
      this.output = undefined;
    }
  }

  /**
   * The messages so far; what finishing reports goes to `warnings`. `final`: the assembly is over (else it
   * is left as it is, and more entries can follow).
   */
  messages(final: boolean, warnings: string[]): Message[] {
    const messages = final ? this.assembler.finish(warnings) : this.assembler.snapshot(warnings);
    const matched = new Set<string>();
    for (const m of messages) {
      const artefact = this.feed.artefacts.get(m.id);
      if (artefact) m.artefact = artefact;
      const usage = this.usageOf.get(m.id);
      if (usage) {
        m.usage = usage.usage;
        matched.add(m.id);
      }
    }
    for (const [id, { line }] of this.usageOf)
      if (!matched.has(id))
        warnings.push(`${this.file}:${line}: the message of this recorded call (${id}) was dropped; usage not attached`);
    return messages;
  }
}

function noteSkipped(skipped: Map<string, { count: number; line: number }>, what: string, line: number): void {
  const seen = skipped.get(what);
  if (seen) seen.count++;
  else skipped.set(what, { count: 1, line });
}

/** Adds the counts of `from` to `into` (whose first lines come first: `from` was noted later). */
function mergeSkipped(
  into: Map<string, { count: number; line: number }>,
  from: ReadonlyMap<string, { count: number; line: number }>,
): void {
  for (const [what, { count, line }] of from) {
    const seen = into.get(what);
    if (seen) seen.count += count;
    else into.set(what, { count, line });
  }
}

/** A user message item carrying a genuine prompt (a user-turn boundary, as Codex counts them). */
function isPromptEntry(entry: Entry): boolean {
  if (entry.kind !== 'item' || entry.item.type !== 'message' || entry.item.role !== 'user' || !Array.isArray(entry.item.content))
    return false;
  return entry.item.content.some(
    (c: unknown) =>
      isObject(c) &&
      (c.type === 'input_image' || (typeof c.text === 'string' && c.text.trim() !== '' && classifyCodexUserText(c.text) === 'prompt')),
  );
}

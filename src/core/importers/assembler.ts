// Assembly of agent logs (Claude Code, Codex) into messages that keep the Messages API's tool rules.
import {
  isToolResult,
  isToolUse,
  type ContentBlock,
  type Message,
  type Role,
  type SyntheticKind,
  type ToolResultBlock,
} from '../conversation/conversation';
import { ChurnMap } from './churnMap';
import { runSteps, type ImportSteps } from './steps';

interface Draft {
  id: string;
  role: Role;
  kind: 'prompt' | 'assistant' | 'results';
  blocks: ContentBlock[];
  /** A prompt that was a plain string keeps that form. */
  text?: string;
  synthetic?: SyntheticKind;
  createdAt?: number;
  /** Claude Code's `message.id`: lines of one API response share it. */
  mergeKey?: string;
}

interface OpenCall {
  draft: Draft;
  id: string;
  name: string;
  line: number;
}

/**
 * Builds messages from a log in order, keeping the Messages API's tool rules: every tool_use is answered
 * by a tool_result in the next user message, every tool_result answers a tool_use of the previous
 * assistant message. A call still unanswered when the conversation moves on (a new prompt, a new model
 * response after results, the end of the file) is dropped, as is a result for an unknown call.
 */
export class Assembler {
  /**
   * The messages of the drafts that can no longer change, in order: a draft before the last two that no
   * open call is in (a response merges at most into the draft before the last; calls are opened in the
   * last two and closed before a third is added). Made into messages as they settle, so a long import
   * holds one object per message, not a draft and then its message as well.
   */
  private readonly done: Message[] = [];
  /** The drafts that may still change (the last two, or a few more while calls in them are open). */
  private readonly drafts: Draft[] = [];
  /** The calls not answered yet (a ChurnMap: set and emptied line by line, see churnMap.ts). */
  private readonly open = new ChurnMap<string, OpenCall>();
  /** Every call accepted: open, answered, or closed without a result (a call is never opened twice). */
  private readonly seenCalls = new Set<string>();
  /** Calls closed without a result (rare): with `open`, what tells an answered call from the others, without a set of every answered call. */
  private readonly closed = new Set<string>();

  constructor(
    private readonly file: string,
    private readonly warnings: string[],
  ) {}

  /**
   * Model output. `mergeKey` set: merge only into the draft with the same key (Claude Code message.id).
   * Returns the id of the message the blocks went into (the id of its first line).
   */
  assistant(blocks: ContentBlock[], line: number, id: string, createdAt?: number, mergeKey?: string): string {
    const last = this.drafts.at(-1);
    let target: Draft | undefined;
    if (last?.kind === 'assistant' && (mergeKey === undefined || last.mergeKey === mergeKey)) {
      target = last;
    } else if (mergeKey !== undefined && last?.kind === 'results') {
      // One response's blocks interleaved with the results of its first calls: keep them in one message.
      const before = this.drafts.at(-2);
      if (before?.kind === 'assistant' && before.mergeKey === mergeKey) target = before;
    }
    if (!target) {
      if (last && last.kind !== 'assistant') this.closeOpen();
      target = { id, role: 'assistant', kind: 'assistant', blocks: [], createdAt, mergeKey };
      this.push(target);
    }
    const added: ContentBlock[] = [];
    for (const block of blocks) {
      if (isToolUse(block)) {
        if (this.seenCalls.has(block.id)) {
          const same = (b: ContentBlock) => isToolUse(b) && b.id === block.id;
          if (!target.blocks.some(same) && !added.some(same)) {
            this.warnings.push(`${this.file}:${line}: tool call ${block.id} appears twice; the repeat is dropped`);
          }
          continue;
        }
        this.seenCalls.add(block.id);
        this.open.set(block.id, { draft: target, id: block.id, name: block.name, line });
      }
      added.push(block);
    }
    // concat: an array of its own length (one grown by push keeps spare slots, a hundred bytes or more a message).
    if (added.length > 0) target.blocks = target.blocks.concat(added);
    return target.id;
  }

  /** Tool results (and whatever else the same user line carried, kept after the results). */
  results(results: ToolResultBlock[], others: ContentBlock[], line: number, id: string, createdAt?: number): void {
    const accepted: ToolResultBlock[] = [];
    for (const r of results) {
      if (this.open.has(r.tool_use_id)) {
        this.open.delete(r.tool_use_id);
        accepted.push(r);
      } else if (this.seenCalls.has(r.tool_use_id) && !this.closed.has(r.tool_use_id)) {
        // Answered already (neither open nor closed).
        this.warnings.push(`${this.file}:${line}: a second result for tool call ${r.tool_use_id}; dropped`);
      } else {
        this.warnings.push(`${this.file}:${line}: tool result for ${r.tool_use_id} has no matching tool call before it; dropped`);
      }
    }
    let last = this.drafts.at(-1);
    if (accepted.length > 0 && last?.kind !== 'results') {
      last = { id, role: 'user', kind: 'results', blocks: [], createdAt };
      this.push(last);
    }
    if (last?.kind === 'results' && (accepted.length > 0 || others.length > 0)) {
      const blocks = last.blocks;
      last.blocks = (blocks.filter(isToolResult) as ContentBlock[]).concat(
        accepted,
        blocks.filter((b) => !isToolResult(b)),
        others,
      );
    } else if (others.length > 0) {
      this.prompt(others, line, id, createdAt);
    }
  }

  /** A user turn (or a synthetic summary standing in for one). */
  prompt(content: string | ContentBlock[], line: number, id: string, createdAt?: number, synthetic?: SyntheticKind): void {
    this.closeOpen();
    const blocks: ContentBlock[] = typeof content === 'string' ? [{ type: 'text', text: content }] : content.slice();
    if (blocks.length === 0) return;
    const draft: Draft = { id, role: 'user', kind: 'prompt', blocks, createdAt, synthetic };
    if (typeof content === 'string') draft.text = content;
    this.push(draft);
  }

  /** A new draft, after which the drafts that can no longer change become messages (see `done`). */
  private push(draft: Draft): void {
    const drafts = this.drafts;
    drafts.push(draft);
    while (drafts.length > 2 && !this.isOpenIn(drafts[0])) {
      const first = drafts.shift() as Draft;
      // The draft's own array: the assembler never changes it in place (prompt copies what it is given).
      const message = toMessage(first, first.blocks);
      if (message) this.done.push(message);
    }
  }

  private isOpenIn(draft: Draft): boolean {
    for (const call of this.open.values()) if (call.draft === draft) return true;
    return false;
  }

  /** The messages, open calls dropped (their warnings go to `warnings`, by default the assembler's own list). */
  finish(warnings: string[] = this.warnings): Message[] {
    return runSteps(this.finishSteps(warnings));
  }

  /** finish() as steps (see steps.ts). */
  *finishSteps(warnings: string[] = this.warnings): ImportSteps<Message[]> {
    this.closeOpen(warnings);
    // The copy of the settled messages (a few ms at 300,000) in a step of its own.
    yield;
    const out = this.done.slice();
    for (const d of this.drafts) {
      // The draft's own array (the assembler is done with it), as for the settled ones.
      const message = toMessage(d, d.blocks);
      if (message) out.push(message);
    }
    return out;
  }

  /**
   * What finish() would give now, leaving the assembler as it is (more can be added afterwards): calls
   * still open are dropped from the copy, with the same warnings (pushed to `warnings`).
   */
  snapshot(warnings: string[]): Message[] {
    const dropped = new Map<Draft, Set<string>>();
    for (const call of this.open.values()) {
      const ids = dropped.get(call.draft);
      if (ids) ids.add(call.id);
      else dropped.set(call.draft, new Set([call.id]));
      warnings.push(noResult(this.file, call));
    }
    const out: Message[] = this.done.map(copyOf);
    for (const d of this.drafts) {
      const ids = dropped.get(d);
      const message = toMessage(d, ids ? d.blocks.filter((b) => !(isToolUse(b) && ids.has(b.id))) : [...d.blocks]);
      if (message) out.push(message);
    }
    return out;
  }

  /** An independent copy (its warnings go to `warnings`): what is added to one is not in the other. */
  clone(warnings: string[]): Assembler {
    const copy = new Assembler(this.file, warnings);
    for (const m of this.done) copy.done.push(copyOf(m));
    const drafts = new Map<Draft, Draft>();
    for (const d of this.drafts) {
      const c: Draft = { ...d, blocks: [...d.blocks] };
      drafts.set(d, c);
      copy.drafts.push(c);
    }
    for (const [id, call] of this.open) copy.open.set(id, { ...call, draft: drafts.get(call.draft) as Draft });
    for (const id of this.closed) copy.closed.add(id);
    for (const id of this.seenCalls) copy.seenCalls.add(id);
    return copy;
  }

  private closeOpen(warnings: string[] = this.warnings): void {
    for (const call of this.open.values()) {
      call.draft.blocks = call.draft.blocks.filter((b) => !(isToolUse(b) && b.id === call.id));
      this.closed.add(call.id);
      warnings.push(noResult(this.file, call));
    }
    this.open.clear();
  }
}

function noResult(file: string, call: OpenCall): string {
  return `${file}:${call.line}: tool call ${call.id} (${call.name}) has no result; dropped`;
}

/** A settled message with an array of its own, as snapshot() and clone() give every message. */
function copyOf(m: Message): Message {
  return { ...m, content: typeof m.content === 'string' ? m.content : [...m.content] };
}

function toMessage(d: Draft, blocks: ContentBlock[]): Message | undefined {
  if (blocks.length === 0) return undefined;
  const message: Message = { id: d.id, role: d.role, content: d.text !== undefined ? d.text : blocks };
  if (d.synthetic) message.synthetic = d.synthetic;
  if (d.createdAt !== undefined) message.createdAt = d.createdAt;
  return message;
}

/** Drop empty and whitespace-only text blocks (the API rejects them). */
export function nonBlank(blocks: readonly ContentBlock[]): ContentBlock[] {
  return blocks.filter((b) => !(b.type === 'text' && typeof b.text === 'string' && b.text.trim() === ''));
}

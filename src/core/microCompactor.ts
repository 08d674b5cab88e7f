// Layer 1, incrementally: keeps the micro-compacted view of a growing history up to date by looking
// only at new messages and the few results that leave the keep-recent window, so the per-turn cost
// does not grow with history length. Produces exactly what `planMicroCompact` would.
import type { Message, ToolResultBlock } from './conversation';
import type { MessageTokenCounter } from './tokens';
import type { ReplacementCache } from './replacementCache';
import { replacedWithPlaceholders, worthReplacing } from './strategies/common';

export interface MicroCompactSettings {
  keepRecent: number;
  minChars: number;
}

export class IncrementalMicroCompactor {
  /** First and last message seen, to tell an append from a rewrite without copying the history. */
  private first: Message | undefined;
  private last: Message | undefined;
  private generation: number | undefined;
  private effective: Message[] = [];
  private results: Array<{ index: number; block: ToolResultBlock }> = [];
  private checked = 0;
  private names = new Map<string, string>();
  private total = 0;
  private truncatedCount = 0;

  constructor(
    private settings: MicroCompactSettings,
    private readonly tokens: MessageTokenCounter,
    private readonly copies?: ReplacementCache,
  ) {}

  /**
   * Bring the view up to date with `messages`. A rewrite (not just appends) rebuilds from scratch;
   * pass the session's rewrite generation to make that explicit rather than inferred.
   */
  sync(messages: readonly Message[], generation?: number): void {
    const n = this.effective.length;
    const appendedOnly =
      generation === this.generation && messages.length >= n && (n === 0 || (messages[0] === this.first && messages[n - 1] === this.last));
    if (!appendedOnly) this.reset();
    this.generation = generation;
    for (let i = this.effective.length; i < messages.length; i++) {
      const m = messages[i];
      this.effective.push(m);
      this.total += this.tokens.countMessage(m);
      if (typeof m.content === 'string') continue;
      for (const b of m.content) {
        if (b.type === 'tool_use') this.names.set((b as { id: string }).id, (b as { name: string }).name);
        else if (b.type === 'tool_result' && m.role === 'user') this.results.push({ index: i, block: b as ToolResultBlock });
      }
    }
    this.first = messages[0];
    this.last = messages[messages.length - 1];
    this.compactOld();
  }

  /** Change keepRecent/minChars: the view is rebuilt on the next sync. */
  configure(settings: MicroCompactSettings): void {
    if (settings.keepRecent === this.settings.keepRecent && settings.minChars === this.settings.minChars) return;
    this.settings = settings;
    this.reset();
  }

  get messages(): readonly Message[] {
    return this.effective;
  }
  /** Tokens of the micro-compacted view. */
  get tokenTotal(): number {
    return this.total;
  }
  get truncatedResults(): number {
    return this.truncatedCount;
  }

  private reset(): void {
    this.first = undefined;
    this.last = undefined;
    this.effective = [];
    this.results = [];
    this.checked = 0;
    this.names = new Map();
    this.total = 0;
    this.truncatedCount = 0;
  }

  private compactOld(): void {
    const out = Math.max(0, this.results.length - this.settings.keepRecent);
    const byMessage = new Map<number, Set<string>>();
    for (; this.checked < out; this.checked++) {
      const { index, block } = this.results[this.checked];
      if (!worthReplacing(block, this.names, this.settings.minChars)) continue;
      let ids = byMessage.get(index);
      if (!ids) byMessage.set(index, (ids = new Set()));
      ids.add(block.tool_use_id);
    }
    for (const [index, ids] of byMessage) {
      const before = this.effective[index];
      const after = replacedWithPlaceholders(before, ids, this.names, this.copies);
      this.effective[index] = after;
      this.total += this.tokens.countMessage(after) - this.tokens.countMessage(before);
      this.truncatedCount += ids.size;
    }
  }
}

// The prompt-cache side of the context meter: what the last model call read from the cache, wrote to
// it and paid in full, the totals of the session's calls, and what they cost (core's prices). A tally
// keeps every call's usage by assistant message id: seeded from the history when the session opens,
// fed with each appended assistant message, and not shrunk by a compaction (archived calls still
// count; after a reload, only the calls still in the history are known).
import { callCostUSD, priceFor, type Message, type RecordedUsage, type SessionLog } from '../../core';
import type { CacheMeter, CallUsageView } from '../../protocol';
import type { PromptCaching } from './promptCache';

export class UsageTally {
  private readonly calls = new Map<string, RecordedUsage>();
  private last: RecordedUsage | undefined;

  constructor(messages: readonly Message[] = []) {
    this.add(messages);
  }

  /** Follow a session: every appended assistant message with usage is a call. */
  static of(session: SessionLog): { tally: UsageTally; dispose(): void } {
    const tally = new UsageTally(session.messages);
    const sub = session.onDidChange((c) => {
      if (c.kind === 'append') tally.add(c.messages);
    });
    return { tally, dispose: () => sub.dispose() };
  }

  add(messages: readonly Message[]): void {
    for (const m of messages) {
      if (m.role !== 'assistant' || !m.usage) continue;
      this.calls.set(m.id, m.usage);
      this.last = m.usage;
    }
  }

  /**
   * The meter's cache view, undefined before the first call. A call's writes are priced by the TTL split
   * it reported; without one, `caching` prices them (5m or 1h).
   */
  meter(caching: PromptCaching, model: string): CacheMeter | undefined {
    if (!this.last) return undefined;
    const ttl = caching === '1h' ? '1h' : '5m';
    const view = (u: RecordedUsage): CallUsageView => ({
      read: u.cacheReadTokens,
      write: u.cacheCreationTokens,
      uncached: u.inputTokens,
      output: u.outputTokens,
      costUSD: callCostUSD(
        {
          inputTokens: u.inputTokens,
          cacheReadTokens: u.cacheReadTokens,
          cacheWriteTokens: u.cacheCreationTokens,
          outputTokens: u.outputTokens,
          ...(u.cacheWrite1hTokens !== undefined ? { cacheWrite1hTokens: u.cacheWrite1hTokens } : {}),
        },
        priceFor(u.model ?? model),
        // A reported split: the writes that are not 1-hour were 5-minute.
        u.cacheWrite1hTokens !== undefined ? '5m' : ttl,
      ),
    });
    const session: CallUsageView = { read: 0, write: 0, uncached: 0, output: 0, costUSD: 0 };
    for (const u of this.calls.values()) {
      const v = view(u);
      session.read += v.read;
      session.write += v.write;
      session.uncached += v.uncached;
      session.output += v.output;
      session.costUSD += v.costUSD;
    }
    return { caching, last: view(this.last), session: { ...session, calls: this.calls.size } };
  }
}

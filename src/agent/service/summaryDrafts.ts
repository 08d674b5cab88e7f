// Summary drafts awaiting the user's review (issue 13 §5): the pipeline's SummaryReviewer parks each
// draft here until the user applies it (with the text as edited), discards it, the review's timeout
// applies it unedited (auto-compaction), or its signal aborts it (the agent was stopped).
import { Emitter, type Disposable, type SummaryDecision, type SummaryDraft, type SummaryReviewer } from '../../core';
import type { HostSettings } from '../../settings/hostSettings';
import { shippedDefault } from '../../settings/schema';

/** The review timeout for auto-compaction drafts, in ms. */
export function reviewTimeoutMs(settings: HostSettings): number {
  const s = settings.autoCompact.reviewTimeoutSeconds;
  return (typeof s === 'number' && Number.isFinite(s) && s > 0 ? s : shippedDefault('autoCompact.reviewTimeoutSeconds')) * 1000;
}

/** A draft as the host shows it (no plan: the engine's business). */
export interface PendingDraft {
  id: string;
  strategy: string;
  trigger: SummaryDraft['trigger'];
  focus?: string;
  text: string;
  createdAt: number;
  archivedCount: number;
  /** When set, the draft is applied unedited at this time (epoch ms) unless the user answers first. */
  deadline?: number;
}

export type DraftEnd = { id: string; outcome: 'applied' | 'discarded' | 'timed-out' | 'cancelled'; edited: boolean };

interface Entry {
  draft: PendingDraft;
  resolve: (d: SummaryDecision) => void;
  cleanup: () => void;
}

export class SummaryDrafts implements Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly opened = new Emitter<PendingDraft>();
  private readonly closed = new Emitter<DraftEnd>();
  /** A draft waits for review. */
  readonly onDidOpen = this.opened.event;
  /** A draft was applied, discarded, timed out or cancelled. */
  readonly onDidClose = this.closed.event;

  constructor(private readonly now: () => number = Date.now) {}

  /** Park `draft` until a decision; `timeoutMs` applies it unedited, `signal` cancels it. */
  review(draft: SummaryDraft, o: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<SummaryDecision> {
    if (o.signal?.aborted) return Promise.resolve({ apply: false, message: 'The compaction was cancelled; the history is unchanged.' });
    const pending: PendingDraft = {
      id: draft.id,
      strategy: draft.strategy,
      trigger: draft.trigger,
      ...(draft.focus ? { focus: draft.focus } : {}),
      text: draft.text,
      createdAt: draft.createdAt,
      archivedCount: draft.plan.archived.length,
      ...(o.timeoutMs !== undefined ? { deadline: this.now() + o.timeoutMs } : {}),
    };
    return new Promise<SummaryDecision>((resolve) => {
      const timer =
        o.timeoutMs !== undefined
          ? setTimeout(() => this.finish(draft.id, { apply: true, text: draft.text }, 'timed-out'), o.timeoutMs)
          : undefined;
      const onAbort = () =>
        this.finish(draft.id, { apply: false, message: 'The compaction was cancelled; the history is unchanged.' }, 'cancelled');
      o.signal?.addEventListener('abort', onAbort, { once: true });
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
      };
      this.entries.set(draft.id, { draft: pending, resolve, cleanup });
      this.opened.fire(pending);
    });
  }

  /** The pipeline's reviewer: `opened` runs as a draft starts waiting; auto and tool drafts time out. */
  reviewer(settings: () => HostSettings, opened: () => void): SummaryReviewer {
    return (draft, signal) => {
      opened();
      const auto = draft.trigger === 'auto' || draft.trigger === 'tool';
      return this.review(draft, { signal, timeoutMs: auto ? reviewTimeoutMs(settings()) : undefined });
    };
  }

  get(id: string): PendingDraft | undefined {
    return this.entries.get(id)?.draft;
  }

  list(): PendingDraft[] {
    return [...this.entries.values()].map((e) => e.draft);
  }

  /** Commit `text` (the edited draft). False if no such draft waits. */
  apply(id: string, text: string): boolean {
    return this.finish(id, { apply: true, text }, 'applied', text !== this.entries.get(id)?.draft.text);
  }

  /** Drop the draft: the history stays unchanged. False if no such draft waits. */
  discard(id: string): boolean {
    return this.finish(id, { apply: false, message: 'The summary was discarded; the history is unchanged.' }, 'discarded');
  }

  /** Cancel every waiting draft (new chat, shutdown). */
  cancelAll(message: string): void {
    for (const id of [...this.entries.keys()]) this.finish(id, { apply: false, message }, 'cancelled');
  }

  private finish(id: string, decision: SummaryDecision, outcome: DraftEnd['outcome'], edited = false): boolean {
    const entry = this.entries.get(id);
    if (!entry) return false;
    this.entries.delete(id);
    entry.cleanup();
    entry.resolve(decision);
    this.closed.fire({ id, outcome, edited });
    return true;
  }

  dispose(): void {
    this.cancelAll('The extension is shutting down; the history is unchanged.');
    this.opened.dispose();
    this.closed.dispose();
  }
}

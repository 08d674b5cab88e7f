// The summary review without VS Code (issue 13 §5): which draft a `splitpoint-draft:` document is,
// what the document holds (a short instruction comment, then the draft), what of an edited document
// is applied (the comment is not), and what the notification of an auto-compaction draft says.
// summaryReview.ts is the thin VS Code part (file system provider, editor tab, commands).
import type { PendingDraft } from '../agent/service/summaryDrafts';

export const DRAFT_SCHEME = 'splitpoint-draft';

const HEADER_OPEN = '<!-- splitpoint:draft';
const HEADER = (d: PendingDraft): string =>
  `${HEADER_OPEN} ${d.strategy} (${d.trigger}), ${d.archivedCount} messages archived.\n` +
  'Edit the summary below, then "Splitpoint: Apply Summary" (editor title) commits exactly this text;\n' +
  '"Splitpoint: Discard Summary" leaves the history unchanged. Saving is not needed; this comment is not applied. -->\n\n';

/** What the controller offers the review (AgentController satisfies it). */
export interface DraftSource {
  drafts: {
    onDidOpen(listener: (d: PendingDraft) => void): { dispose(): void };
    onDidClose(listener: (e: { id: string }) => void): { dispose(): void };
    get(id: string): PendingDraft | undefined;
    list(): PendingDraft[];
  };
  applyDraft(id: string, text: string): boolean;
  discardDraft(id: string): boolean;
}

export class SummaryReviewModel {
  /** Saved (or initial) document text per draft id. */
  private readonly texts = new Map<string, string>();
  /** Drafts that ended (the last 20): their editor still reads and saves, so it closes without a prompt. */
  private readonly ended = new Map<string, string>();

  constructor(private readonly source: DraftSource) {}

  /** The document path of a draft: `/<strategy> summary <id>.md`. */
  pathFor(d: PendingDraft): string {
    return `/${d.strategy} summary ${d.id}.md`;
  }

  /** The draft id a document path names, if that draft still waits. */
  idOf(path: string): string | undefined {
    const id = idIn(path);
    return id && this.source.drafts.get(id) ? id : undefined;
  }

  /** The document text of a path (header + draft, or what was saved), or undefined for an unknown draft. */
  read(path: string): string | undefined {
    const id = this.idOf(path);
    if (!id) return this.ended.get(idIn(path) ?? '');
    const d = this.source.drafts.get(id)!;
    return this.texts.get(id) ?? HEADER(d) + d.text + '\n';
  }

  /** Saving a draft document keeps its text (nothing is applied). False for an unknown draft. */
  write(path: string, text: string): boolean {
    const id = this.idOf(path);
    const gone = idIn(path);
    if (!id && gone && this.ended.has(gone)) this.ended.set(gone, text);
    if (!id) return gone !== undefined && this.ended.has(gone);
    this.texts.set(id, text);
    return true;
  }

  /** Commit the document's current text (the instruction comment removed). */
  apply(path: string, documentText: string): { ok: true } | { ok: false; message: string } {
    const id = this.idOf(path);
    if (!id) return { ok: false, message: 'This summary draft is no longer waiting (applied, discarded or timed out).' };
    this.texts.delete(id);
    this.source.applyDraft(id, summaryTextOf(documentText));
    return { ok: true };
  }

  discard(path: string): boolean {
    const id = this.idOf(path);
    if (!id) return false;
    this.texts.delete(id);
    return this.source.discardDraft(id);
  }

  /** The drafts waiting now. */
  pending(): PendingDraft[] {
    return this.source.drafts.list();
  }

  /** A draft ended: forget its saved text. */
  forget(id: string): void {
    this.ended.set(id, this.texts.get(id) ?? '');
    this.texts.delete(id);
    for (const old of this.ended.keys()) if (this.ended.size > 20) this.ended.delete(old);
  }

  /** The notification for a draft that paused the agent (auto-compaction or the compact tool), else undefined. */
  notification(d: PendingDraft, now: number): string | undefined {
    if (d.deadline === undefined) return undefined;
    const seconds = Math.max(0, Math.round((d.deadline - now) / 1000));
    return (
      `Splitpoint paused the agent to let you review the ${d.strategy} summary (${d.archivedCount} messages archived). ` +
      `It is applied unedited in ${seconds} s unless you apply or discard it.`
    );
  }
}

function idIn(path: string): string | undefined {
  return /^\/[a-z-]+ summary (draft_[A-Za-z0-9_]+)\.md$/.exec(path)?.[1];
}

/** The text to commit from a draft document: without the leading instruction comment. */
export function summaryTextOf(documentText: string): string {
  const text = documentText.replace(/^\uFEFF/, '');
  if (!text.trimStart().startsWith(HEADER_OPEN)) return text.trim();
  const end = text.indexOf('-->');
  return end < 0 ? text.trim() : text.slice(end + 3).trim();
}

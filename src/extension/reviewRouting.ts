// The chat's file-review intents (open a pending edit's diff, preview / open / confirm a restore,
// undo the last compaction), routed to the features that own them. No `vscode` import.
import type { AgentController } from '../agent/service/controller';
import type { ChatToHost, PendingEdit } from '../protocol';
import type { MessageHandlers } from './router';

/** The edits waiting for approval, as the chat lists them. */
export function pendingEditsOf(review: Pick<AgentController['review'], 'proposals'>): PendingEdit[] {
  return review.proposals().map((p) => ({ toolUseId: p.toolUseId, path: p.path, title: p.title }));
}

/** What the chat's review buttons do (DiffReview and CheckpointRestore provide it). */
export interface ChatReview {
  openDiff(toolUseId: string): Promise<void>;
  previewRestore(messageId: string): Promise<void>;
  openRestoreDiff(messageId: string, path: string): Promise<void>;
  restoreFiles(messageId: string): Promise<void>;
}

type ReviewMessages = 'openDiff' | 'previewRestore' | 'openRestoreDiff' | 'restoreFiles' | 'undoCompaction';

export function reviewHandlers(
  controller: Pick<AgentController, 'undo'>,
  review: ChatReview,
): Pick<MessageHandlers<ChatToHost>, ReviewMessages> {
  return {
    openDiff: (msg) => review.openDiff(msg.toolUseId),
    previewRestore: (msg) => review.previewRestore(msg.messageId),
    openRestoreDiff: (msg) => review.openRestoreDiff(msg.messageId, msg.path),
    restoreFiles: (msg) => review.restoreFiles(msg.messageId),
    undoCompaction: () => void controller.undo(),
  };
}

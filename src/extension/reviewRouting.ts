// The chat's file-review intents (open a pending edit's diff, preview / open / confirm a restore,
// undo the last compaction), routed to the features that own them. No `vscode` import.
import type { AgentController } from '../agent/service/controller';
import type { ChatToHost } from '../protocol';
import type { MessageHandlers } from './router';

/** What the chat's review buttons do (DiffReview and CheckpointRestore provide it). */
export interface ChatReview {
  /** The view (re)loaded: tell it the pending edits. */
  ready(): void;
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

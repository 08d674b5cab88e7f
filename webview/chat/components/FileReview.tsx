// File review in the chat: the list of edits waiting for approval (each opens in VS Code's diff
// editor), and on a prompt with a file checkpoint, "Restore files to before this prompt": the files
// a restore would change back, each openable as a diff, then a confirmation. Components only render;
// every action is a store method.
import type { PendingEdit, RestoreFileView } from '../../../src/protocol';
import { escapeInvisible } from '../invisible';
import { useStore } from '../context';
import type { RestorePanel } from '../store';

const SINCE_LABEL: Record<RestoreFileView['since'], string> = {
  created: 'created since: will be deleted',
  deleted: 'deleted since: will be recreated',
  modified: 'changed since: will be restored',
};

/** Edits waiting for approval (several when a turn proposes more than one). */
export function PendingEdits({ items }: { items: readonly PendingEdit[] }) {
  const store = useStore();
  if (items.length === 0) return null;
  return (
    <section class="pending-edits" aria-label="Edits waiting for approval">
      <div class="section-label">
        {items.length === 1 ? '1 edit waits for approval' : `${items.length} edits wait for approval`} · review in the diff editor
      </div>
      <ul>
        {items.map((e) => (
          <li key={e.toolUseId}>
            <button type="button" class="link-button" aria-label={`Open diff of ${e.path}`} onClick={() => store.openDiff(e.toolUseId)}>
              {escapeInvisible(e.path).text}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The button under a prompt whose turn changed files (a checkpoint exists). */
export function RestoreButton({ messageId }: { messageId: string }) {
  const store = useStore();
  return (
    <button
      type="button"
      class="link-button restore-files"
      title="Preview which files would change back to how they were before this prompt"
      onClick={() => store.previewRestore(messageId)}
    >
      Restore files to before this prompt
    </button>
  );
}

/** What a restore would change, each file openable as a diff (now ↔ before the prompt), then confirm. */
export function RestorePreview({ panel }: { panel: RestorePanel }) {
  const store = useStore();
  const { files, messageId } = panel;
  return (
    <div class="restore-panel" role="group" aria-label="Restore files to before this prompt">
      {panel.error ? <p class="error-message">{panel.error}</p> : null}
      {files === null && !panel.error ? <p class="muted">Comparing the files with the checkpoint…</p> : null}
      {files && files.length === 0 ? <p class="muted">The files are as they were before this prompt; nothing to restore.</p> : null}
      {files && files.length > 0 ? (
        <>
          <p>
            Restoring changes {files.length === 1 ? '1 file' : `${files.length} files`} back (the conversation is not changed; click a file
            to see its diff):
          </p>
          <ul class="restore-files-list">
            {files.map((f) => (
              <li key={f.path}>
                <button
                  type="button"
                  class="link-button"
                  aria-label={`Diff of ${f.path}`}
                  onClick={() => store.openRestoreDiff(messageId, f.path)}
                >
                  {escapeInvisible(f.path).text}
                </button>{' '}
                <span class={`muted since-${f.since}`}>({SINCE_LABEL[f.since]})</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <div class="approval-row">
        {files && files.length > 0 ? (
          <button type="button" class="button primary" onClick={() => store.restoreFiles(messageId)}>
            Restore {files.length === 1 ? '1 file' : `${files.length} files`}
          </button>
        ) : null}
        <button type="button" class="button secondary" onClick={store.cancelRestore}>
          {files && files.length > 0 ? 'Cancel' : 'Close'}
        </button>
      </div>
    </div>
  );
}

// Past compactions, newest first: when, which strategy, what started it, tokens before -> after, and
// the transcript that holds the full history from before it.
import type { CompactionView } from '../../../src/protocol';
import { formatDelta, formatInt, formatTime, plural } from '../../shared/format';
import { useStore } from '../context';

/** `canCheck`: the current session's own compactions (not a recording's or a past context's) offer "Check this compaction". */
export function CompactionHistory({ compactions, canCheck = false }: { compactions: readonly CompactionView[]; canCheck?: boolean }) {
  const store = useStore();
  return (
    <section class="panel history" aria-labelledby="sp-history-title">
      <h2 id="sp-history-title">Past compactions</h2>
      {compactions.length === 0 ? (
        <p class="muted">None yet.</p>
      ) : (
        <ol class="history-list" reversed>
          {[...compactions].reverse().map((c) => (
            <li key={c.id} class="history-item" data-compaction={c.id}>
              <div class="history-head">
                <span class="history-strategy">{c.strategy}</span>
                <span class="tag">{c.trigger}</span>
                <time dateTime={new Date(c.at).toISOString()}>{formatTime(c.at)}</time>
              </div>
              <div class="history-figures">
                {formatInt(c.tokensBefore)} → {formatInt(c.tokensAfter)} tokens ({formatDelta(c.tokensBefore, c.tokensAfter)}) ·{' '}
                {plural(c.archivedCount, 'message')} archived
              </div>
              {c.focus && <div class="history-focus">Focus: {c.focus}</div>}
              {c.draft !== undefined && (
                <details class="history-draft">
                  <summary>
                    {c.finalText === c.draft ? 'Reviewed summary (applied unedited)' : 'Reviewed summary (edited before it was applied)'}
                  </summary>
                  {c.finalText !== c.draft && (
                    <pre class="history-draft-text" data-part="draft">
                      {c.draft}
                    </pre>
                  )}
                  <pre class="history-draft-text" data-part="final">
                    {c.finalText}
                  </pre>
                </details>
              )}
              <button type="button" class="link" onClick={() => store.openTranscript(c.transcriptPath)} title={c.transcriptPath}>
                Open transcript
              </button>
              {canCheck && c.trigger !== 'undo' && (
                <button
                  type="button"
                  class="link"
                  data-action="check-compaction"
                  title="Ask the model the probes of what this compaction archived (the cost is shown before it runs)"
                  onClick={() => store.checkCompaction(c.id)}
                >
                  Check this compaction
                </button>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

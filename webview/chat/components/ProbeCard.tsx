// "Check this compaction" (issue 22) in the chat: the divider's button (its estimated cost in the label:
// nothing is sent until the click) and the result card: the rate overall and by kind, each missed probe
// with its question, the expected answer, the model's answer (untrusted: through the markdown
// sanitizer) and its source message (a link that scrolls to it when the chat shows it), and one click
// to pin the source, add the fact to the ledger, or undo the compaction.
import type { ChatItem, ProbeCheckOffer, ProbeKindView, ProbeMissView } from '../../../src/protocol';
import { domId, formatInt, formatUSD } from '../../shared/format';
import { Markdown } from '../../shared/MarkdownView';
import { useStore } from '../context';

type ProbeItem = Extract<ChatItem, { kind: 'probes' }>;

const KINDS: readonly ProbeKindView[] = ['artifact', 'recall', 'decision', 'continuation'];

/** The label of the check button: its price before it runs. */
export function checkLabel(check: ProbeCheckOffer): string {
  return `Check this compaction (≈ ${formatUSD(check.estimateUSD)})`;
}

/** The divider's check: a plain link, or (splitpoint.probes.afterCompaction = ask) an offer under the line. */
export function CheckCompaction({ compactionId, check }: { compactionId: string; check: ProbeCheckOffer }) {
  const store = useStore();
  const tokens = formatInt(check.inputTokens);
  const title = `Ask ${check.probes} questions about what this compaction archived of ${check.model} (about ${tokens} input tokens)`;
  const button = (
    <button
      type="button"
      class={check.offer ? 'button secondary check-compaction' : 'link-button check-compaction'}
      data-action="check-compaction"
      title={title}
      onClick={() => store.checkCompaction(compactionId)}
    >
      {checkLabel(check)}
    </button>
  );
  if (!check.offer) return button;
  return (
    <div class="compaction-offer">
      <span class="muted">What did it lose? </span>
      {button}
    </div>
  );
}

const rate = (correct: number, total: number): string => (total === 0 ? '—' : `${correct}/${total}`);

export function ProbeCard({ item }: { item: ProbeItem }) {
  const missed = item.missed.filter((m) => m.verdict !== 'uncertain');
  const uncertain = item.missed.filter((m) => m.verdict === 'uncertain');
  return (
    <section class={`item probe-card ${item.status}`} aria-label="Compaction check" data-check-id={item.id}>
      <header class="probe-head">
        <strong>Compaction check</strong>
        <span class="muted"> · {item.model}</span>
        {item.costUSD !== undefined ? <span class="muted"> · {formatUSD(item.costUSD)}</span> : null}
      </header>
      {item.status === 'running' ? <p class="muted">Asking {item.total} questions…</p> : null}
      {item.status === 'failed' ? <p class="probe-error">{item.error ?? 'The check failed.'}</p> : null}
      {item.status === 'done' ? (
        <>
          <p class="probe-rate">
            <strong data-rate>{rate(item.correct, item.total)}</strong> answered correctly
            <span class="muted">
              {' · '}
              {KINDS.filter((k) => item.byKind[k].total > 0)
                .map((k) => `${k} ${rate(item.byKind[k].correct, item.byKind[k].total)}`)
                .join(' · ')}
            </span>
          </p>
          {missed.length > 0 ? (
            <MissList title="Missed" item={item} misses={missed} />
          ) : (
            <p class="muted">{uncertain.length > 0 ? 'No exact fact missed.' : 'Nothing missed.'}</p>
          )}
          {item.followed && item.followed.length > 0 ? <Followed item={item} /> : null}
          {uncertain.length > 0 ? (
            <MissList title="Uncertain (not an exact fact: check the answer yourself)" item={item} misses={uncertain} />
          ) : null}
        </>
      ) : null}
    </section>
  );
}

/** Probes of earlier checks the user acted on (pinned, added to the ledger), asked again. */
function Followed({ item }: { item: ProbeItem }) {
  return (
    <div class="probe-followed">
      <h4>Asked again (you acted on these earlier)</h4>
      <ul>
        {(item.followed ?? []).map((f) => (
          <li key={f.probeId} data-probe-id={f.probeId} data-answered={String(f.answered)}>
            <span class={f.answered ? 'probe-ok' : 'probe-error'}>{f.answered ? '✓ answered now' : '✗ still missed'}</span> {f.question}{' '}
            <span class="muted">({f.expected.join(' | ')})</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function MissList({ title, item, misses }: { title: string; item: ProbeItem; misses: readonly ProbeMissView[] }) {
  return (
    <div class="probe-misses">
      <h4>{title}</h4>
      <ul>
        {misses.map((m) => (
          <MissRow key={m.probeId} item={item} miss={m} />
        ))}
      </ul>
    </div>
  );
}

function MissRow({ item, miss }: { item: ProbeItem; miss: ProbeMissView }) {
  const store = useStore();
  const shown = miss.sourceId !== null && store.getSnapshot().chat.items.some((i) => 'messageId' in i && i.messageId === miss.sourceId);
  const act = (action: 'pin' | 'addToLedger' | 'undo') => store.probeAction(item.id, miss.probeId, action);
  return (
    <li class="probe-miss" data-probe-id={miss.probeId} data-verdict={miss.verdict}>
      <div class="probe-question">
        <span class="probe-kind">{miss.kind}</span> {miss.question}
      </div>
      <div class="probe-expected">
        Expected: <code>{miss.expected.join(' | ')}</code>
      </div>
      <div class="probe-answer">
        {miss.verdict === 'unanswered' ? (
          <span class="muted">No answer.</span>
        ) : (
          <>
            <span class="probe-answer-label">The model answered:</span>
            <Markdown text={miss.answer} class="probe-answer-text" />
          </>
        )}
      </div>
      <div class="probe-actions">
        {miss.sourceId !== null && shown ? (
          <button type="button" class="link-button" data-action="show-source" onClick={() => focusMessage(miss.sourceId!)}>
            Show source
          </button>
        ) : miss.sourceId !== null ? (
          <span class="muted">Source {miss.sourceId} (not in this chat)</span>
        ) : null}
        {miss.done ? (
          <span class="probe-done">{miss.done === 'pinned' ? 'Source pinned' : 'Added to the ledger'}</span>
        ) : (
          <>
            {miss.sourceId !== null ? (
              <button type="button" class="link-button" data-action="pin-source" onClick={() => act('pin')}>
                Pin source message
              </button>
            ) : null}
            <button type="button" class="link-button" data-action="add-to-ledger" onClick={() => act('addToLedger')}>
              Add to ledger
            </button>
            {item.undoable ? (
              <button type="button" class="link-button" data-action="undo-compaction" onClick={() => act('undo')}>
                Undo the compaction
              </button>
            ) : null}
          </>
        )}
      </div>
    </li>
  );
}

/** Scroll to a chat message by its session message id and move the focus there. */
function focusMessage(messageId: string): void {
  const el = document.getElementById(domId('msg', messageId));
  if (!el) return;
  el.scrollIntoView({ block: 'center' });
  el.focus();
}

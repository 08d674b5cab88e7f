// The full text of the selected message, always as text (never HTML). For a micro-compacted tool
// result both what the model sees and the original the session keeps. SelectedMessage finds the
// message asked for (a row of the context shown, or of the archived history) and its actions.
import { useState } from 'preact/hooks';
import type { InspectorSession, LedgerView, MessageDetail, MessageRow, RecordedCallView } from '../../../src/protocol';
import { formatInt, formatTokens } from '../../shared/format';
import { useStore } from '../context';
import { travelPoint, type SessionIndex } from '../derive';
import { KIND_LABEL } from '../kinds';
import { LedgerCard } from './LedgerCard';
import { checkCompactionAction, currentSessionActions, PinMarker, RowActions, type RowAction } from './RowActions';
import { splitHereActions } from './SplitHere';

/** Longer texts are cut for display until "Show all" is pressed (the DOM stays light). */
const DISPLAY_CHARS = 100_000;

export interface DetailPaneProps {
  row: MessageRow | null;
  detailId: string | null;
  detail: MessageDetail | null;
  /** The recorded compaction that archived the message, when it is not in the context shown. */
  archivedBy?: number;
  /** Actions on the row shown (pin / unpin, …); none for a recording or a past context. */
  actions?: readonly RowAction[];
  /** The artifact ledger the compaction that wrote this summary row carried, if any. */
  ledger?: LedgerView;
}

export interface SelectedMessageProps {
  session: InspectorSession;
  index: SessionIndex;
  detailId: string | null;
  detail: MessageDetail | null;
}

/** The detail pane of the message whose detail was asked for, with the actions it offers. */
export function SelectedMessage({ session, index, detailId, detail }: SelectedMessageProps) {
  const store = useStore();
  const shownRow = detailId !== null ? (session.rows[index.indexById.get(detailId) ?? -1] ?? null) : null;
  const archivedRow = detailId !== null && !shownRow ? index.archived.get(detailId) : undefined;
  // Pins are the current session's: offered on its rows only (not a recording's, not a past context's).
  const actions: RowAction[] = shownRow && !session.readOnly && !travelPoint(session) ? currentSessionActions(shownRow, store) : [];
  // Split here previews on any row (Apply is refused for a recording or a past context).
  if (shownRow) actions.push(...splitHereActions(shownRow, store.splitWithSummary(), store.splitHere, store.toggleSplitSummary));
  const wrote = shownRow ? session.compactions.find((c) => c.syntheticId === shownRow.id) : undefined;
  const ledger = wrote?.ledger;
  // The summary row of one of the current session's compactions: "Check this compaction" (issue 22).
  if (shownRow && wrote && !session.readOnly && !travelPoint(session))
    actions.push(checkCompactionAction(shownRow, wrote.id, store.checkCompaction));
  return (
    <DetailPane
      row={shownRow ?? archivedRow?.row ?? null}
      detailId={detailId}
      detail={detail}
      archivedBy={archivedRow?.compaction}
      actions={actions}
      ledger={ledger}
    />
  );
}

export function DetailPane({ row, detailId, detail, archivedBy, actions = [], ledger }: DetailPaneProps) {
  const store = useStore();
  if (!detailId) {
    return (
      <section class="detail detail-empty" aria-label="Message detail">
        <p class="muted">Select a message (click it, or press Enter on it) to see its full text.</p>
      </section>
    );
  }
  return (
    <section class="detail" aria-labelledby="sp-detail-title" data-detail-id={detailId}>
      <header class="detail-head">
        <h2 id="sp-detail-title">
          {archivedBy !== undefined && <span class="tag tag-archived">archived by compaction {archivedBy}</span>}
          {row ? `#${row.index} · ${KIND_LABEL[row.kind]}` : 'Message'}
          {detail && <span class="muted"> · {formatTokens(detail.tokens)} (o200k) seen by the model</span>}
          {row?.pinned && <PinMarker />}
        </h2>
        {row && <RowActions row={row} actions={actions} />}
        <button type="button" class="icon" aria-label="Close detail" title="Close" onClick={store.closeDetail}>
          ✕
        </button>
      </header>
      {row?.mcp && (
        <p class="detail-mcp">
          {row.mcp.map((m) => (
            <span key={`${m.server}/${m.tool}`} class="tag tag-mcp">
              MCP server {m.server} · {m.tool}
            </span>
          ))}
        </p>
      )}
      {row?.usage && <RecordedCall call={row.usage} />}
      {ledger && (
        <LedgerCard ledger={ledger} label="Artifact ledger this compaction carried" which="ledger" onKeep={store.keepInstruction} />
      )}
      {!detail ? (
        <p class="muted" role="status">
          Loading…
        </p>
      ) : detail.effectiveText !== undefined ? (
        <div class="detail-body detail-split">
          <DetailText key={`${detail.id}-seen`} title="What the model sees" which="effective" text={detail.effectiveText} />
          <DetailText
            key={`${detail.id}-orig`}
            title={`Original (kept in the session${row?.truncated ? `, ${formatInt(row.truncated.originalTokens)} tokens` : ''})`}
            which="original"
            text={detail.text}
          />
        </div>
      ) : (
        <div class="detail-body">
          <DetailText key={detail.id} title={detail.kind === 'summary' ? 'Summary' : 'Full text'} which="original" text={detail.text} />
        </div>
      )}
    </section>
  );
}

function DetailText({ title, which, text }: { title: string; which: 'original' | 'effective'; text: string }) {
  const [all, setAll] = useState(false);
  const cut = !all && text.length > DISPLAY_CHARS;
  return (
    <div class={`detail-text-block detail-${which}`}>
      <h3>{title}</h3>
      <pre class="detail-text" data-detail={which} tabIndex={0}>
        {cut ? text.slice(0, DISPLAY_CHARS) : text}
      </pre>
      {cut && (
        <button type="button" class="link" onClick={() => setAll(true)}>
          Show all ({formatInt(text.length)} characters)
        </button>
      )}
    </div>
  );
}

/** What the API recorded for the call that produced this message (ground truth). */
function RecordedCall({ call }: { call: RecordedCallView }) {
  return (
    <dl class="recorded-call" data-field="recorded-call" aria-label="Recorded model call">
      <dt>Recorded call</dt>
      <dd data-stat="call-input">{formatInt(call.input)} input</dd>
      <dt>uncached</dt>
      <dd data-stat="call-uncached">{formatInt(call.inputTokens)}</dd>
      <dt>cache read</dt>
      <dd data-stat="call-cache-read">{formatInt(call.cacheReadTokens)}</dd>
      <dt>cache creation</dt>
      <dd data-stat="call-cache-creation">
        {formatInt(call.cacheCreationTokens)}
        {call.cacheWrite1hTokens !== undefined && call.cacheCreationTokens > 0 && (
          <span class="muted" data-stat="call-cache-1h">
            {' '}
            ({formatInt(call.cacheWrite1hTokens)} for 1 hour)
          </span>
        )}
      </dd>
      <dt>output</dt>
      <dd data-stat="call-output">{formatInt(call.outputTokens)}</dd>
      {call.costUSD !== undefined && (
        <>
          <dt>cost</dt>
          <dd
            data-stat="call-cost"
            data-price-source={call.priceSource}
            title={
              "At the model's list price, each cache write at its recorded TTL (5 minutes when not recorded)" +
              (call.priceSource === 'family-fallback'
                ? "; the model is not in the price table: priced as its family's (or the default) price"
                : '')
            }
          >
            ${call.costUSD < 1 ? call.costUSD.toFixed(4) : call.costUSD.toFixed(2)}
            {call.priceSource === 'family-fallback' && <span class="muted"> (family price)</span>}
          </dd>
        </>
      )}
      {call.model && (
        <>
          <dt>model</dt>
          <dd data-stat="call-model">{call.model}</dd>
        </>
      )}
    </dl>
  );
}

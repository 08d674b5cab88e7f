// The full text of the selected message, always as text (never HTML). For a micro-compacted tool
// result both what the model sees and the original the session keeps.
import { useState } from 'preact/hooks';
import type { MessageDetail, MessageRow } from '../../../src/protocol';
import { fmtInt, fmtTokens, KIND_LABEL } from '../format';

/** Longer texts are cut for display until "Show all" is pressed (the DOM stays light). */
const DISPLAY_CHARS = 100_000;

export interface DetailPaneProps {
  row: MessageRow | null;
  detailId: string | null;
  detail: MessageDetail | null;
  onClose(): void;
}

export function DetailPane({ row, detailId, detail, onClose }: DetailPaneProps) {
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
          {row ? `#${row.index} · ${KIND_LABEL[row.kind]}` : 'Message'}
          {detail && <span class="muted"> · {fmtTokens(detail.tokens)} seen by the model</span>}
        </h2>
        <button type="button" class="icon" aria-label="Close detail" title="Close" onClick={onClose}>
          ✕
        </button>
      </header>
      {!detail ? (
        <p class="muted" role="status">
          Loading…
        </p>
      ) : detail.effectiveText !== undefined ? (
        <div class="detail-body detail-split">
          <DetailText key={`${detail.id}-seen`} title="What the model sees" which="effective" text={detail.effectiveText} />
          <DetailText
            key={`${detail.id}-orig`}
            title={`Original (kept in the session${row?.truncated ? `, ${fmtInt(row.truncated.originalTokens)} tokens` : ''})`}
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
          Show all ({fmtInt(text.length)} characters)
        </button>
      )}
    </div>
  );
}

// The glance strip for a session of another agent (issue 24 item 3), under the banners: the context
// used now of its window, that agent's own compaction point and how many calls away it is, the cost
// so far, its last compaction and what it archived, and whether the host follows the file live. Its
// buttons preview that agent's next compaction (the replay configuration's strategy and parameters,
// through the store's own preview) and "Continue in Splitpoint". It listens for its own host message
// (`live`, checked with parseHostToLive) and asks for it when it mounts (`liveReady`).
import { useEffect, useState } from 'preact/hooks';
import { parseHostToLive, type LiveToHost, type LiveView } from '../../../src/protocol';
import { formatInt, formatPercent, formatTime, formatUSD, plural } from '../../shared/format';
import { connectHost } from '../../shared/host';
import { useStore } from '../context';

const AGENTS: Record<string, string> = { 'claude-code': 'Claude Code', codex: 'Codex', splitpoint: 'Splitpoint', unknown: 'The agent' };

/** The host's latest `live` message (null until one came, or when the panel shows no such session). */
function useLive(): LiveView | null {
  const [live, setLive] = useState<LiveView | null>(null);
  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      const message = parseHostToLive(event.data);
      if (message) setLive(message.live);
    };
    window.addEventListener('message', onMessage);
    connectHost<LiveToHost>().post({ type: 'liveReady' });
    return () => window.removeEventListener('message', onMessage);
  }, []);
  return live;
}

export function LiveStrip() {
  const live = useLive();
  const store = useStore();
  if (!live) return null;
  const s = live.status;
  const agent = AGENTS[s.agent] ?? AGENTS.unknown;
  const used = s.contextTokens;
  const preview = live.agentPreview;
  const previewAgent = () => {
    if (!preview || !store.strategy(preview.strategy)) return;
    for (const [name, value] of Object.entries(preview.params)) store.setParam(preview.strategy, name, String(value));
    store.preview(preview.strategy);
  };
  const continueHere = () => connectHost<LiveToHost>().post({ type: 'continueInSplitpoint' });
  const last = s.lastCompaction;
  return (
    <section class={`live-strip${live.gone ? ' live-gone' : ''}`} role="region" aria-label={`${agent} session at a glance`}>
      <span class="live-state" data-field="live-state">
        {live.gone ? (
          <>File gone: the last read</>
        ) : live.following ? (
          <>
            <span class="live-dot" aria-hidden="true" /> Following live
          </>
        ) : (
          <>Read once</>
        )}
      </span>
      <span class="live-fig" data-field="live-context" title={`Window: ${s.windowSource}`}>
        {used === null ? (
          'No call recorded yet'
        ) : (
          <>
            <strong>{formatInt(used)}</strong> of {formatInt(s.contextWindow)} ({formatPercent(used / s.contextWindow)})
          </>
        )}
      </span>
      {s.compactAt !== null && (
        <span class="live-fig" data-field="live-compact-at" title={s.compactAtSource}>
          {agent} compacts at {formatInt(s.compactAt)}
          {s.callsToCompaction !== null && (
            <>
              {' · '}
              <strong data-field="live-calls-to-compaction">
                {s.callsToCompaction <= 0 ? 'due now' : `${plural(s.callsToCompaction, 'call')} away`}
              </strong>
              {s.growthPerCall !== null && <span class="muted"> (+{formatInt(s.growthPerCall)}/call)</span>}
            </>
          )}
        </span>
      )}
      {s.costSoFar !== null && (
        <span class="live-fig" data-field="live-cost" title={s.priceSource ?? undefined}>
          {formatUSD(s.costSoFar)} so far · {plural(s.calls, 'call')}
        </span>
      )}
      {last && (
        <span class="live-fig" data-field="live-last-compaction">
          Last compaction #{last.index} ({last.trigger}
          {last.preTokens !== null ? ` at ${formatInt(last.preTokens)}` : ''}
          {last.at !== null ? `, ${formatTime(last.at)}` : ''}) archived {plural(last.archivedMessages, 'message')}
          {last.archivedTokens !== null ? ` (${formatInt(last.archivedTokens)} tokens)` : ''}
        </span>
      )}
      <span class="live-actions">
        {preview && (
          <button
            type="button"
            class="secondary"
            data-action="preview-agent-compaction"
            title={`Preview ${preview.strategy} with the ${preview.config} configuration's parameters`}
            onClick={previewAgent}
          >
            Preview {preview.label}
          </button>
        )}
        {live.canContinue && (
          <button type="button" data-action="continue-in-splitpoint" onClick={continueHere}>
            Continue in Splitpoint
          </button>
        )}
      </span>
    </section>
  );
}

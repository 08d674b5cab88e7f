// What server-side context management did for the model call that produced a row (issue 14, section 4):
// the tool results the server cleared from that request, or its compaction (a failed one changed nothing).
import type { ServerContextView } from '../../../src/protocol';
import { formatInt } from '../../shared/format';

export function serverMarkerText(s: ServerContextView): string | null {
  if (s.compaction === 'applied') return 'server compacted';
  if (s.compaction === 'failed') return 'server compaction failed';
  const n = s.clearedToolUses ?? 0;
  if (n === 0) return null;
  return `server cleared ${n} tool result${n === 1 ? '' : 's'} (${formatInt(s.clearedInputTokens ?? 0)} tok)`;
}

const TITLES = {
  applied: 'The server compacted the conversation at this call: its compaction block replaces the earlier history',
  failed: 'The server tried to compact at this call and failed (a compaction block with null content): nothing changed',
  cleared: 'The server cleared these old tool results from this request before the model saw it (clear_tool_uses); the session keeps them',
};

export function ServerMarker({ server }: { server: ServerContextView }) {
  const text = serverMarkerText(server);
  if (!text) return null;
  const kind = server.compaction ?? 'cleared';
  return (
    <span class={`badge badge-server badge-server-${kind}`} data-marker={`server-${kind}`} title={TITLES[kind]}>
      {text}
    </span>
  );
}

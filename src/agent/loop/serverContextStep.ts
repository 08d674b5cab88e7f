// Server-side context management in the agent loop (issue 14, section 4). When the auto-compact strategy
// is a server one, every request carries its `context_management` edit and beta flag (through the SDK's
// beta messages API), the local auto-compaction layer stands down (pipeline.beforeModelCall), and after
// each call what the server reported is kept on the assistant message (`serverContext`) and told to the
// user. A compaction block with a summary is sent back as the API requires; the messages before it,
// which the API ignores from then on, are archived like any compaction (transcript first), so the
// session, the context meter and the chat agree with the server. A compaction block with null content
// is a failed no-op: it is dropped and the user is told; nothing is archived.
import type Anthropic from '@anthropic-ai/sdk';
import {
  serverContextReport,
  serverContextRequest,
  withoutFailedCompactions,
  type AutoCompactSettings,
  type CompactionOutcome,
  type CompactionPipeline,
  type ContentBlock,
  type ServerContextReport,
  type ServerContextRequest,
} from '../../core';

export interface ServerCall {
  strategy: string;
  request: ServerContextRequest;
}

/** What the next request adds for the auto strategy (null: not a server strategy, or auto-compaction off). */
export function serverCallFor(auto: AutoCompactSettings): ServerCall | null {
  if (!auto.enabled) return null;
  const request = serverContextRequest(auto.strategy, auto.params, auto.serverContext);
  return request ? { strategy: auto.strategy, request } : null;
}

/** The reply's blocks to keep: without failed (null-content) compaction blocks, which change nothing. */
export function keptReplyBlocks(blocks: ContentBlock[], call: ServerCall | null): ContentBlock[] {
  return call ? withoutFailedCompactions(blocks) : blocks;
}

/** What the server did for this reply (null without a server strategy). */
export function reportFor(call: ServerCall | null, reply: Anthropic.Message): ServerContextReport | null {
  if (!call) return null;
  return serverContextReport(call.strategy, reply as unknown as Parameters<typeof serverContextReport>[1]);
}

/** True when the server changed what the model saw: its input count is then not the local estimate's to calibrate against. */
export function serverEdited(report: ServerContextReport | null): boolean {
  return !!report && ((report.clearedToolUses ?? 0) > 0 || report.compaction === 'applied');
}

/** Tells the user what the server did, once per change (clearing repeats on every request once it starts). */
export class ServerContextNotices {
  private lastCleared = 0;

  noticeFor(report: ServerContextReport | null): { level: 'info' | 'warning'; message: string } | null {
    if (!report) return null;
    if (report.compaction === 'failed')
      return {
        level: 'warning',
        message: 'The server tried to compact the conversation and failed (an empty compaction block): nothing was compacted.',
      };
    if (report.compaction === 'applied')
      return { level: 'info', message: 'The server compacted the conversation: its summary replaces the earlier history.' };
    const n = report.clearedToolUses ?? 0;
    if (n === this.lastCleared) return null;
    this.lastCleared = n;
    if (n === 0) return null;
    const tokens = (report.clearedInputTokens ?? 0).toLocaleString('en-US');
    return { level: 'info', message: `The server cleared ${n} old tool result${n === 1 ? '' : 's'} (${tokens} tokens) from this request.` };
  }
}

/**
 * After the server compacted (and the reply's tool results, if any, are in the session): archive what
 * precedes the compaction block, through the pipeline (transcript written before anything is removed).
 */
export function commitServerCompaction(pipeline: CompactionPipeline, signal: AbortSignal): Promise<CompactionOutcome> {
  const auto = pipeline.settings.autoCompact;
  return pipeline.compact({
    strategy: 'server-compact',
    params: auto.strategy === 'server-compact' ? auto.params : {},
    trigger: 'auto',
    signal,
  });
}

// One (session, configurations) task of `splitpoint tune`, as a worker thread runs it: the session is
// imported, calibrated and replayed as recorded once per worker (kept for the next tasks; the least recently used are let go
// past MAX_SESSIONS), counts are remembered by text across replays, and every configuration of the task
// is replayed on that prepared recording (replayPrepared). Each replay is a pure function of (session file, configuration).
import {
  CachingTextTokenizer,
  createTokenizer,
  DEFAULT_TOKENIZER,
  importSession,
  prepareReplay,
  readSessionFile,
  replayPrepared,
  type PreparedReplay,
} from '../core';
import { resolveReplayConfig } from '../settings/replayConfigs';

/** Sessions a worker keeps imported (the pool sends a worker the files it already has first). */
const MAX_SESSIONS = 16;

export interface TuneTask {
  taskId: number;
  file: string;
  /** Replay configuration files' JSON (replayConfigs.ts), by id. */
  configs: Array<{ id: string; json: unknown }>;
}

/** One replay: the figures a --results row carries (before the ratios, which need the baselines). */
export interface TuneReplayRow {
  id: string;
  costUSD: number;
  calls: number;
  compactions: number;
  summaryCalls: number;
  summaryCostUSD: number;
  peakContextTokens: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  probeRecall: number | null;
  pathRecall: number;
  promptRecall: number;
  stoppedAt: number | null;
}

export type TuneReply =
  { taskId: number; ok: true; rows: TuneReplayRow[]; ms: number } | { taskId: number; ok: false; error: string; badInput: boolean };

export class TuneReplayer {
  private readonly sessions = new Map<string, PreparedReplay>();
  // Every text counted once per worker: replaySession's per-call memo is keyed by message object.
  private readonly tokenizer = new CachingTextTokenizer(createTokenizer(DEFAULT_TOKENIZER), { maxChars: 1e9, maxEntries: 500_000 });

  /** The session imported, calibrated and replayed as recorded once (kept for the worker's next tasks). */
  private async session(file: string): Promise<PreparedReplay> {
    let s = this.sessions.get(file);
    if (s) {
      this.sessions.delete(file);
    } else {
      s = await prepareReplay(importSession(readSessionFile(file), file), { tokenizer: this.tokenizer });
      if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    }
    this.sessions.set(file, s);
    return s;
  }

  async run(task: TuneTask): Promise<TuneReply> {
    const t0 = Date.now();
    let session: PreparedReplay;
    try {
      session = await this.session(task.file);
    } catch (e) {
      return { taskId: task.taskId, ok: false, error: messageOf(e, task.file), badInput: true };
    }
    try {
      const configs = task.configs.map((c) => resolveReplayConfig(c.json, `tune configuration ${c.id}`));
      const report = await replayPrepared(session, configs);
      const rows = report.configs.map((r, i) => ({
        id: task.configs[i].id,
        costUSD: r.costUSD,
        calls: r.calls,
        compactions: r.compactions,
        summaryCalls: r.summaryCalls,
        summaryCostUSD: r.summaryCostUSD,
        peakContextTokens: r.peakContextTokens,
        inputTokens: r.inputTokens,
        cacheReadTokens: r.cacheReadTokens,
        cacheWriteTokens: r.cacheWriteTokens,
        outputTokens: r.outputTokens,
        probeRecall: r.probeRecall,
        pathRecall: r.pathRecall,
        promptRecall: r.promptRecall,
        stoppedAt: r.stoppedAt,
      }));
      return { taskId: task.taskId, ok: true, rows, ms: Date.now() - t0 };
    } catch (e) {
      return { taskId: task.taskId, ok: false, error: messageOf(e, task.file), badInput: false };
    }
  }
}

/** An error's message, naming the file when it does not already. */
function messageOf(e: unknown, file: string): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.includes(file) ? m : `${file}: ${m}`;
}

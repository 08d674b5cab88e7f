// `splitpoint inspect FILE --follow [--json]`: follow a session an agent is writing (Claude Code, Codex or
// Splitpoint JSONL) and print one line per new model call: the context it read (recorded), its share of
// the window, the calls left before the agent's own auto-compaction at the recent growth rate, and the cost
// so far (core liveCalls: the same figures as liveStatus, as they stood right after that call). With
// --json each line is one JSON object (keys contextTokens, contextWindow, percent, callsToCompaction,
// costSoFar, plus call, agent, model, compactAt, growthPerCall).
//
// The file is read incrementally (core SessionFollower: only the appended bytes; a partial last line waits
// for its end; a truncated or replaced file is read again). Polls run on fs.watch events and on a 1 s timer
// (watch events are not guaranteed on every file system). The calls already in the file when following
// starts are summed up in one line (human output only) and a stderr line says following has started;
// every later call gets its line, several per poll when several arrived. Ends with exit 0 on SIGINT or SIGTERM, or when the file is deleted (a stderr line
// says so); a file that cannot be read or imported is a stderr line naming it, exit 2.
import { watch, type FSWatcher } from 'node:fs';
import { resolve } from 'node:path';
import { agentOf, ImportError, liveCalls, liveStatus, SessionFollower, type FollowUpdate, type ImportResult, type LiveCall } from '../core';
import { EXIT_BAD_INPUT, EXIT_OK, rejectFlags, UsageError, type CliIO, type ParsedArgs } from './args';
import { oneLine } from './terminal';

/** The fallback poll interval (ms), when no watch event comes. */
export const FOLLOW_POLL_MS = 1000;

const n = (x: number) => x.toLocaleString('en-US');
const usd = (x: number) => `$${x.toFixed(x < 1 ? 4 : 2)}`;
const AGENTS: Record<string, string> = { 'claude-code': 'Claude Code', codex: 'Codex', splitpoint: 'Splitpoint', unknown: 'a session' };

/** One --json line. */
export function callJson(c: LiveCall, agent: string): Record<string, unknown> {
  return {
    call: c.call,
    agent,
    model: c.model,
    contextTokens: c.contextTokens,
    contextWindow: c.contextWindow,
    percent: c.percent,
    compactAt: c.compactAt,
    callsToCompaction: c.callsToCompaction,
    growthPerCall: c.growthPerCall,
    costSoFar: Math.round(c.costSoFar * 1e6) / 1e6,
  };
}

/** One readable line. */
export function callLine(c: LiveCall): string {
  const toCompaction =
    c.compactAt === null
      ? 'compaction point unknown'
      : c.callsToCompaction === null
        ? `compacts at ${n(c.compactAt)} (not growing)`
        : c.callsToCompaction === 0
          ? `at the compaction point (${n(c.compactAt)})`
          : `~${n(c.callsToCompaction)} calls to compaction at ${n(c.compactAt)}`;
  return `call ${c.call}: ${n(c.contextTokens)} / ${n(c.contextWindow)} tokens (${c.percent}%), ${toCompaction}, cost so far ${usd(c.costSoFar)}${
    c.model ? `  [${oneLine(c.model)}]` : ''
  }`;
}

function summary(file: string, result: ImportResult): string {
  const s = liveStatus(result, file);
  const ctx =
    s.contextTokens === null ? 'context unknown since the last compaction' : `context ${n(s.contextTokens)} / ${n(s.contextWindow)}`;
  const cost = s.costSoFar === null ? '' : `, cost so far ${usd(s.costSoFar)}`;
  return `${oneLine(file)}: ${AGENTS[s.agent]}${s.model ? ` (${oneLine(s.model)})` : ''}, ${s.calls} call(s), ${s.compactions} compaction(s), ${ctx}${cost}`;
}

export interface FollowHooks {
  /** Called once following has started (the first poll done): tests and callers wait on it. */
  onStarted?: () => void;
}

export async function followCommand(rest: string[], args: ParsedArgs, io: CliIO, hooks: FollowHooks = {}): Promise<number> {
  rejectFlags(args, 'inspect --follow', ['--json', '--follow']);
  if (rest.length !== 1) throw new UsageError('inspect --follow needs exactly one FILE');
  const file = resolve(rest[0]);
  const json = args.flags.has('--json');
  const follower = new SessionFollower(file);
  const printed = new Set<string>();
  let compactions = 0;
  let known = 0;
  let started = false;

  return new Promise<number>((done) => {
    let finished = false;
    let busy = false;
    let again = false;
    let watcher: FSWatcher | undefined;
    const timer = setInterval(() => void tick(), FOLLOW_POLL_MS);
    const finish = (code: number) => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      watcher?.close();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      done(code);
    };
    const onSignal = () => finish(EXIT_OK);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);

    const handle = (u: FollowUpdate) => {
      if (u.reset) io.stderr(`splitpoint: ${oneLine(file)}: the file was ${u.reset}; read again from the start\n`);
      if (u.changed || !started) {
        const agent = agentOf(u.result.format);
        // The calls before the last few known ones were printed already (all of them after a reset).
        if (u.reset) known = 0;
        const calls = liveCalls(u.result, Math.max(0, known - 5));
        known = calls.at(-1)?.call ?? known;
        if (!started) {
          for (const c of calls) printed.add(c.messageId);
          compactions = u.result.compactions.length;
          if (!json) io.stdout(summary(file, u.result) + '\n');
        } else {
          for (const c of calls) {
            if (printed.has(c.messageId)) continue;
            printed.add(c.messageId);
            io.stdout((json ? JSON.stringify(callJson(c, agent)) : callLine(c)) + '\n');
          }
          for (let k = compactions; k < u.result.compactions.length; k++) {
            const c = u.result.compactions[k];
            const pre = c.preTokens === null ? '' : `, ${n(c.preTokens)} tokens before`;
            if (!json) io.stdout(`compaction ${k + 1} recorded (${c.trigger}${pre}; ${c.before.length} messages archived)\n`);
          }
          compactions = u.result.compactions.length;
        }
      }
      if (u.gone) {
        io.stderr(`splitpoint: ${oneLine(file)}: the file was deleted; stopped following\n`);
        finish(EXIT_OK);
      }
    };

    const tick = async (): Promise<void> => {
      if (finished) return;
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      try {
        handle(await follower.poll());
        markStarted();
      } catch (e) {
        if (e instanceof ImportError && e.detail === 'the file is empty') markStarted();
        else if (e instanceof ImportError && e.detail === 'file not found' && started) {
          io.stderr(`splitpoint: ${oneLine(file)}: the file was deleted; stopped following\n`);
          finish(EXIT_OK);
        } else {
          io.stderr(`splitpoint: ${oneLine(e instanceof ImportError ? e.message : `${file}: ${String(e)}`)}\n`);
          finish(EXIT_BAD_INPUT);
        }
      } finally {
        busy = false;
      }
      if (again && !finished) {
        again = false;
        await tick();
      }
    };

    const markStarted = () => {
      if (started) return;
      started = true;
      try {
        watcher = watch(file, () => void tick());
        watcher.on('error', () => undefined);
      } catch {
        // No watch on this file system: the timer polls.
      }
      io.stderr(`splitpoint: following ${oneLine(file)} (Ctrl+C to stop)\n`);
      hooks.onStarted?.();
    };

    void tick();
  });
}

// Section 9: following a live session (issue 24 item 2). A ~4 MB Claude Code session and a ~4 MB Codex
// rollout, built from the real recorded sessions, are followed with SessionFollower; then lines are appended
// one at a time, in recorded order, each followed by a poll. Side by side, after each append, the whole file
// is imported again (importSessionFile, the streamed import): the target is a per-append poll at most 1/20
// of that. The host's longest block (a 1 ms timer chain) is watched during the first read and the appends.
//
// The sessions: Claude Code = claude-code-cipher-box-c then claude-code-cipher-box-b, whose uuids are renamed
// and whose first line is chained to c's last (one conversation, two compactions); Codex = codex-agentv-b
// then codex-agentv-a's lines (one rollout). Both cut at about 4 MB.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { importSessionFile } from '../src/core';
import { SessionFollower } from '../src/core/importers/follow';
import type { BenchContext } from './context';
import { realSessionsDir } from './hostwait';
import { fmtBytes, fmtMs, fmtRatio, forceGc, log, median, notAvailable, type SectionResult, type Table, type TargetResult } from './lib';

const TITLE = '9. Following a live session: one appended line vs importing the file again';
const ID = 'follow';
const SIZE = 4 * 1024 * 1024;
const RATIO_TARGET = 1 / 20;
const BLOCK_TARGET_MS = 50;

interface FollowFigures {
  bytes: number;
  appends: number;
  pollMs: number[];
  importMs: number[];
  firstPollMs: number;
  firstBlockMs: number;
  appendBlockMs: number;
  /** The longest block of the monitor alone, the thread idle (this shared machine's noise floor). */
  idleBlockMs: number;
  slowestPolls: number[];
  /** The most CPU time one poll used (a poll slower than that waited for a core on this shared machine). */
  maxPollCpuMs: number;
  fullReads: number;
}

/**
 * Longest stall of the thread while `fn` runs: the longest gap of a 1 ms timer chain, clipped to the time
 * `fn` ran (on a loaded machine the process also waits for a core, before and after).
 */
async function watched<T>(fn: () => Promise<T>): Promise<{ value: T; maxBlockMs: number }> {
  let last = performance.now();
  let from = Infinity;
  let to = Infinity;
  let longest = 0;
  let timer: NodeJS.Timeout | undefined;
  const gap = (now: number): number => Math.min(now, to) - Math.max(last, from) - 1;
  const tick = (): void => {
    const now = performance.now();
    longest = Math.max(longest, gap(now));
    last = now;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  await new Promise((r) => setTimeout(r, 5));
  from = performance.now();
  const value = await fn();
  to = performance.now();
  await new Promise((r) => setTimeout(r, 2));
  clearTimeout(timer);
  return { value, maxBlockMs: Math.max(0, longest, gap(performance.now())) };
}

function jsonLines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
}

/** Claude Code: c, then b with its uuids renamed and its roots chained to c's last message line. */
function claudeCodeLines(dir: string): string[] {
  const first = jsonLines(join(dir, 'claude-code-cipher-box-c.jsonl'));
  let leaf: string | undefined;
  for (const raw of first) {
    const v = JSON.parse(raw) as Record<string, unknown>;
    if ((v.type === 'user' || v.type === 'assistant') && typeof v.uuid === 'string') leaf = v.uuid;
  }
  const rename = (u: unknown): unknown => (typeof u === 'string' ? `${u}-b` : u);
  const second = jsonLines(join(dir, 'claude-code-cipher-box-b.jsonl')).map((raw) => {
    const v = JSON.parse(raw) as Record<string, unknown>;
    if ('uuid' in v) v.uuid = rename(v.uuid);
    if ('logicalParentUuid' in v) v.logicalParentUuid = rename(v.logicalParentUuid);
    if ('parentUuid' in v) v.parentUuid = v.parentUuid === null && v.type !== 'system' ? (leaf ?? null) : rename(v.parentUuid);
    return JSON.stringify(v);
  });
  return [...first, ...second];
}

/** Codex: agentv-b, then agentv-a (its session_meta line is not read). */
function codexLines(dir: string): string[] {
  return [...jsonLines(join(dir, 'codex-agentv-b.jsonl')), ...jsonLines(join(dir, 'codex-agentv-a.jsonl'))];
}

/** Follows `lines` written to `path`: the first ~SIZE bytes minus `appends` lines at once, then one line per poll. */
async function follow(path: string, lines: string[], appends: number): Promise<FollowFigures> {
  let bytes = 0;
  let end = 0;
  while (end < lines.length && bytes < SIZE) bytes += Buffer.byteLength(lines[end++]) + 1;
  const start = Math.max(1, end - appends);
  writeFileSync(path, `${lines.slice(0, start).join('\n')}\n`);
  const follower = new SessionFollower(path);
  const first = await watched(async () => {
    const t = performance.now();
    await follower.poll();
    return performance.now() - t;
  });
  // Warm both paths once (the first import compiles what the follower did not use).
  await importSessionFile(path);
  const pollMs: number[] = [];
  const pollCpuMs: number[] = [];
  const importMs: number[] = [];
  let appendBlockMs = 0;
  for (let i = start; i < end; i++) {
    appendFileSync(path, `${lines[i]}\n`);
    const polled = await watched(async () => {
      const t = performance.now();
      const cpu = process.cpuUsage();
      const update = await follower.poll();
      if (!update.changed) throw new Error(`the poll after line ${i + 1} read nothing`);
      const used = process.cpuUsage(cpu);
      pollCpuMs.push((used.user + used.system) / 1000);
      return performance.now() - t;
    });
    pollMs.push(polled.value);
    appendBlockMs = Math.max(appendBlockMs, polled.maxBlockMs);
    const t = performance.now();
    await importSessionFile(path);
    importMs.push(performance.now() - t);
    // The import's garbage is collected here, not in the next poll (a follower runs without such imports).
    forceGc();
  }
  // The noise floor: the same monitor while the thread only waits, as long as the appends' polls took.
  const idle = await watched(
    () =>
      new Promise((r) =>
        setTimeout(
          r,
          Math.max(
            200,
            pollMs.reduce((a, b) => a + b, 0),
          ),
        ),
      ),
  );
  return {
    bytes,
    appends: end - start,
    pollMs,
    importMs,
    firstPollMs: first.value,
    firstBlockMs: first.maxBlockMs,
    appendBlockMs,
    idleBlockMs: idle.maxBlockMs,
    slowestPolls: [...pollMs].sort((a, b) => b - a).slice(0, 5),
    maxPollCpuMs: Math.max(...pollCpuMs),
    fullReads: follower.fullReads,
  };
}

export async function benchFollow(ctx: BenchContext): Promise<SectionResult> {
  const dir = realSessionsDir();
  if (!dir) return notAvailable(ID, TITLE, 'no real sessions folder (test/fixtures/real-sessions)');
  const appends = ctx.quick ? 50 : 100;
  const figures: Record<string, FollowFigures> = {};
  const rows: string[][] = [];
  const targets: TargetResult[] = [];
  for (const [name, lines] of [
    ['Claude Code', claudeCodeLines(dir)],
    ['Codex', codexLines(dir)],
  ] as const) {
    log(`follow: ${name}`);
    const f = await follow(join(ctx.tmp, `follow-${name === 'Codex' ? 'rollout' : 'session'}.jsonl`), lines, appends);
    figures[name] = f;
    const poll = median(f.pollMs);
    const whole = median(f.importMs);
    const ratio = poll / whole;
    const block = Math.max(f.firstBlockMs, f.appendBlockMs);
    rows.push([
      `${name}, ${fmtBytes(f.bytes)}`,
      `${fmtMs(poll)} (max ${fmtMs(Math.max(...f.pollMs))})`,
      fmtMs(whole),
      fmtRatio(ratio),
      fmtMs(f.firstPollMs),
      fmtMs(f.firstBlockMs),
      fmtMs(f.appendBlockMs),
      fmtMs(f.idleBlockMs),
      fmtMs(f.maxPollCpuMs),
      String(f.fullReads),
    ]);
    targets.push({
      target: `${name}: one appended line costs ≤ 1/20 of importing the ~4 MB file again`,
      status: ratio <= RATIO_TARGET ? 'met' : 'missed',
      detail: `median poll ${fmtMs(poll)} / median import ${fmtMs(whole)} = ${fmtRatio(ratio)} (${f.appends} appends, same run)`,
    });
    targets.push({
      target: `${name}: the host never blocks over ${BLOCK_TARGET_MS} ms while following (first read included)`,
      status: block <= BLOCK_TARGET_MS ? 'met' : 'missed',
      detail:
        `longest block ${fmtMs(block)} (first read ${fmtMs(f.firstBlockMs)}, appends ${fmtMs(f.appendBlockMs)}; ` +
        `idle noise floor ${fmtMs(f.idleBlockMs)}; slowest polls ${f.slowestPolls.map((ms) => fmtMs(ms)).join(', ')}; ` +
        `the most CPU time a poll used: ${fmtMs(f.maxPollCpuMs)}; load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores)`,
    });
  }
  const tables: Table[] = [
    {
      title: '9a. Per appended line: a poll of the follower vs the whole streamed import of the same file',
      columns: [
        'session',
        'poll after one line (median)',
        'importSessionFile (median)',
        'ratio',
        'first read',
        'longest block, first read',
        'longest block, appends',
        'longest block, idle',
        'most CPU in one poll',
        'whole reads',
      ],
      rows,
      notes: [
        `After each appended line (${appends} per session, recorded order), the follower's poll and then importSessionFile of the ` +
          'same file are timed; medians over the appends. Target: ratio ≤ ×0.05 (1/20).',
        'Longest block: the longest stall of a 1 ms timer chain while the poll ran, clipped to the poll (the first read ' +
          'streams the file in 256 KiB chunks and imports it in 8 ms slices); "idle": the same monitor with nothing to do, ' +
          "as long as all the appends' polls took (the noise floor of this shared machine).",
        '"most CPU in one poll": process CPU time (user + system) of the costliest poll; a longer wall-clock block is time ' +
          'the thread waited for a core. "whole reads": times the follower imported the whole file (1 = the first read only).',
      ],
    },
  ];
  return { id: ID, title: TITLE, tables, targets, data: figures };
}

// Deterministic synthetic coding-agent sessions with realistic shapes: short prompts, many file
// reads of 1-40 KB, command outputs, searches, edits, occasional parallel calls and thinking.
// Used by tests, the example session and the benchmarks.
import type { ContentBlock, Message } from '../../src/core/conversation/conversation';

/** Small, fast, seeded PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded random source: a number in [0, 1) per call. */
export type Rand = () => number;
/** One of `xs`, drawn with `r`. */
export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
/** An integer in [lo, hi], drawn with `r`. */
export const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

/** Short prompts of the kind a person types to a coding agent (the bench adds more of its own). */
export const PROMPTS: readonly string[] = [
  'The date parser fails on leap years; find out why and fix it.',
  'Add a --json flag to the report command.',
  'Why is the build slow? Profile it and suggest fixes.',
  'Refactor the config loader to validate every field.',
  'Write tests for the cache eviction policy.',
  'Rename UserService to AccountService everywhere.',
  'The CI job times out on the integration tests; investigate.',
  'Make the HTTP client retry on 503 with backoff.',
];
const FILES = [
  'src/date.ts',
  'src/report.ts',
  'src/config.ts',
  'src/cache.ts',
  'src/http/client.ts',
  'test/cache.test.ts',
  'package.json',
  'src/index.ts',
];

function sourceText(r: () => number, bytes: number, path: string): string {
  const lines: string[] = [];
  let size = 0;
  let n = 1;
  while (size < bytes) {
    const indent = '  '.repeat(Math.floor(r() * 3));
    const kind = r();
    const line =
      kind < 0.2
        ? `${indent}export function fn${n}(value: number, options?: { strict?: boolean }): number {`
        : kind < 0.4
          ? `${indent}const result${n} = compute(value * ${n}, "${path}:${n}");`
          : kind < 0.55
            ? `${indent}// ${PROMPTS[n % PROMPTS.length].toLowerCase()}`
            : kind < 0.7
              ? `${indent}if (options?.strict && result${n} > ${Math.floor(r() * 1000)}) throw new RangeError('out of range: ' + result${n});`
              : kind < 0.85
                ? `${indent}return result${n} ?? fallback(${n});`
                : `${indent}}`;
    lines.push(`${String(n).padStart(5)}\t${line}`);
    size += line.length + 7;
    n++;
  }
  return lines.join('\n');
}

function commandOutput(r: () => number, bytes: number): string {
  const out: string[] = [];
  let size = 0;
  let i = 0;
  while (size < bytes) {
    const line =
      r() < 0.9
        ? `  ✓ suite ${i} › case ${Math.floor(r() * 100)} (${Math.floor(r() * 40)} ms)`
        : `  ✗ suite ${i} › leap year 2024-02-29: expected 29, got 1`;
    out.push(line);
    size += line.length + 1;
    i++;
  }
  return out.join('\n');
}

export interface SyntheticOptions {
  /** Number of messages to generate (approximately: the last exchange is completed). */
  messages: number;
  seed?: number;
  /** Probability that a tool exchange has 2-3 parallel calls. */
  parallel?: number;
  /** Exchanges per turn (average). */
  exchangesPerTurn?: number;
}

/** A valid session of about `messages` messages (≈100 tokens per message on average... see bench). */
export function syntheticSession(o: SyntheticOptions): Message[] {
  const r = rng(o.seed ?? 1);
  const out: Message[] = [];
  let toolId = 0;
  let id = 0;
  const next = () => `syn_${(id++).toString(36).padStart(5, '0')}`;
  const perTurn = o.exchangesPerTurn ?? 6;
  while (out.length < o.messages) {
    out.push({ id: next(), role: 'user', content: pick(r, PROMPTS) });
    const exchanges = 1 + Math.floor(r() * perTurn * 2);
    for (let e = 0; e < exchanges && out.length < o.messages - 2; e++) {
      const calls = r() < (o.parallel ?? 0.15) ? 2 + Math.floor(r() * 2) : 1;
      const uses: ContentBlock[] = [];
      const results: ContentBlock[] = [];
      if (r() < 0.2)
        uses.push({ type: 'thinking', thinking: 'The failing case is around February; check the month table first.', signature: 'sig' });
      if (r() < 0.5) uses.push({ type: 'text', text: 'Let me look at the relevant code.' });
      for (let c = 0; c < calls; c++) {
        const tid = `toolu_${(toolId++).toString(36).padStart(6, '0')}`;
        const kind = r();
        const path = FILES[Math.floor(r() * FILES.length)];
        if (kind < 0.55) {
          uses.push({ type: 'tool_use', id: tid, name: 'read_file', input: { path } });
          results.push({ type: 'tool_result', tool_use_id: tid, content: sourceText(r, 1_000 + Math.floor(r() * r() * 39_000), path) });
        } else if (kind < 0.75) {
          uses.push({ type: 'tool_use', id: tid, name: 'run_command', input: { command: 'npm test' } });
          results.push({
            type: 'tool_result',
            tool_use_id: tid,
            content: commandOutput(r, 500 + Math.floor(r() * 6_000)),
            ...(r() < 0.2 ? { is_error: true } : {}),
          });
        } else if (kind < 0.9) {
          uses.push({ type: 'tool_use', id: tid, name: 'search', input: { query: 'isLeap(' } });
          results.push({
            type: 'tool_result',
            tool_use_id: tid,
            content: `${path}:14: if (m === 2 && d === 29 && !isLeap(y)) return 1;\n${path}:31: export function isLeap(y: number) {`,
          });
        } else {
          uses.push({ type: 'tool_use', id: tid, name: 'edit_file', input: { path, old: 'd > 28', new: 'd > (isLeap(y) ? 29 : 28)' } });
          results.push({ type: 'tool_result', tool_use_id: tid, content: `Edited ${path}: 1 replacement.` });
        }
      }
      out.push({ id: next(), role: 'assistant', content: uses });
      out.push({ id: next(), role: 'user', content: results });
    }
    out.push({
      id: next(),
      role: 'assistant',
      content: [{ type: 'text', text: 'Done: the month table capped February at 28 days; it now honours leap years, and the tests pass.' }],
    });
  }
  return out;
}

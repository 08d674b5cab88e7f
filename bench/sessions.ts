// Bench sessions: deterministic, tool-heavy coding-agent conversations sized at about 100 o200k
// tokens per message, so 100 / 1,000 / 10,000 messages are about 10K / 100K / 1M tokens.
//
// test/helpers/synthetic.ts yields about 1,100 tokens per message (most exchanges read a 1-40 KB
// file of highly repetitive generated code), which puts 10,000 messages at about 11M tokens; its
// text is also much more repetitive than real files, which flatters the faster encoder. This
// generator keeps the shapes (short prompts, file reads of 1-40 KB, command outputs, searches,
// edits, parallel calls, thinking) but:
//   - file contents are slices of real source files from node_modules (TypeScript, JavaScript,
//     .d.ts, JSON), formatted like a `cat -n` read, so the encoders see realistic text;
//   - the tool mix is closer to a real session: most calls are searches, edits, short commands and
//     listings; reads are 1-40 KB with small files far more common than big ones;
//   - a light budget steer keeps the running size near 100 tokens per message (a read is cut to its
//     1 KB floor while the session runs more than 15% over budget), so every size lands close to
//     its target instead of depending on how many 40 KB reads the dice happened to pick.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ContentBlock, Message } from '../src/core/conversation/conversation';
import { int, pick, PROMPTS as SYNTHETIC_PROMPTS, rng, type Rand } from '../test/helpers/synthetic';
import { REPO } from './lib';

export const BENCH_SIZES = [100, 1_000, 10_000] as const;
export type BenchSize = (typeof BENCH_SIZES)[number];

/** About 3.7 characters per o200k token on this mix; used only to steer the size while generating. */
const CHARS_PER_TOKEN_ESTIMATE = 3.7;
const TARGET_TOKENS_PER_MESSAGE = 100;

interface SourceFile {
  path: string;
  lines: string[];
}

let pool: SourceFile[] | undefined;

/** Real files the "reads" slice from, in a fixed order (sorted paths), so sessions are reproducible. */
export function sourcePool(): SourceFile[] {
  if (pool) return pool;
  const roots: Array<[string, RegExp]> = [
    ['node_modules/@anthropic-ai/sdk/src', /\.ts$/],
    ['node_modules/@types/node', /^[^/]*\.d\.ts$/],
    ['node_modules/preact/src', /\.js$/],
    ['node_modules/preact/hooks/src', /\.js$/],
    ['node_modules/marked/lib', /marked\.esm\.js$/],
    ['node_modules/typescript/lib', /^lib\.es20\d\d\.[a-z]+\.d\.ts$/],
    ['node_modules/fast-check/package.json', /json$/],
    ['node_modules/esbuild/package.json', /json$/],
    ['node_modules/typescript/package.json', /json$/],
  ];
  const files: SourceFile[] = [];
  for (const [root, pattern] of roots) {
    for (const abs of walk(join(REPO, root))) {
      const rel = relative(join(REPO, root), abs) || (abs.split('/').pop() as string);
      if (!pattern.test(rel)) continue;
      const text = readFileSync(abs, 'utf8');
      if (text.length < 400) continue;
      files.push({ path: relative(join(REPO, 'node_modules'), abs), lines: text.split('\n') });
    }
  }
  if (files.length < 20) throw new Error(`bench/sessions: only ${files.length} source files found under node_modules; run npm install`);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  pool = files;
  return files;
}

function walk(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    return [];
  }
  if (st.isFile()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => walk(join(path, name)));
}

/** The test generator's prompts, then some of the follow-ups real sessions are full of. */
const PROMPTS = [
  ...SYNTHETIC_PROMPTS,
  'Can you explain how the streaming parser handles partial frames?',
  'Looks good. Now update the changelog and the README section on retries.',
  'That broke the Windows path handling, see the failing test output above.',
  'Please keep the public API unchanged and add a deprecation notice instead.',
  'continue',
  'yes, go ahead',
  'Split the 600-line module into smaller files, one concept per file.',
  'Add type guards for the webhook payloads and reject unknown event types.',
];

const SAY = [
  'Let me look at the relevant code first.',
  "I'll check how this is wired before changing anything.",
  'The test output points at the month table; reading it now.',
  'Found it: the loop uses `<=` where the bound is exclusive.',
  'Running the suite again to confirm the fix.',
  'That covers the happy path; now the error cases.',
  'Searching for other call sites that depend on the old behaviour.',
  'The config schema needs a new optional field; updating the types and the validator together.',
];

const THINK = [
  'The failure only happens when the request is retried after a partial body was read, so the stream must be recreated rather than reused. ',
  'If I change the signature here every caller in src/commands needs updating; a default parameter keeps them working. ',
  'The timeout is per attempt, not overall, which explains why three retries take ninety seconds. ',
  'There are two code paths that build the cache key and they disagree on normalisation of trailing slashes. ',
];

const TEST_NAMES = [
  'parses ISO dates',
  'rejects invalid months',
  'handles leap years',
  'retries on 503',
  'gives up after max attempts',
  'evicts least recently used',
  'keeps pinned entries',
  'reads nested config',
  'reports unknown keys',
  'streams partial frames',
];

const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A `cat -n` style read of about `bytes` characters from a real file, starting at a random line. */
function readText(r: Rand, file: SourceFile, bytes: number): string {
  const start = file.lines.length > 1 ? Math.floor(r() * Math.max(1, file.lines.length - 20)) : 0;
  const out: string[] = [];
  let size = 0;
  for (let i = start; size < bytes; i++) {
    const line = file.lines[i % file.lines.length];
    const row = `${String((i % file.lines.length) + 1).padStart(6)}\t${line}`;
    out.push(row);
    size += row.length + 1;
  }
  return out.join('\n');
}

function someLines(r: Rand, file: SourceFile, n: number): string[] {
  const start = Math.floor(r() * Math.max(1, file.lines.length - n));
  return file.lines.slice(start, start + n);
}

function commandOutput(r: Rand, bytes: number): { command: string; text: string; error: boolean } {
  const kind = r();
  const out: string[] = [];
  let size = 0;
  const push = (line: string) => {
    out.push(line);
    size += line.length + 1;
  };
  if (kind < 0.45) {
    push('> node --test test/**/*.test.ts');
    let failed = 0;
    for (let i = 0; size < bytes; i++) {
      const ok = r() < 0.93;
      if (!ok) failed++;
      push(`${ok ? '✔' : '✖'} ${pick(r, TEST_NAMES)} (${(r() * 40).toFixed(2)}ms)`);
      if (!ok)
        push(
          `  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n  ${int(r, 1, 31)} !== ${int(r, 1, 31)}` +
            `\n      at TestContext.<anonymous> (test/date.test.ts:${int(r, 10, 400)}:${int(r, 3, 30)})`,
        );
    }
    push(`ℹ tests ${out.length} ℹ pass ${out.length - failed} ℹ fail ${failed}`);
    return { command: 'npm test', text: out.join('\n'), error: failed > 0 };
  }
  if (kind < 0.7) {
    const files = sourcePool();
    while (size < bytes) {
      const f = pick(r, files);
      push(
        `${f.path}(${int(r, 1, f.lines.length)},${int(r, 1, 60)}): error TS${int(r, 2300, 2800)}: ` +
          `Type '${pick(r, ['string', 'number | undefined', 'Message[]', 'unknown'])}' ` +
          `is not assignable to type '${pick(r, ['never', 'string', 'readonly Message[]', 'Record<string, number>'])}'.`,
      );
    }
    return { command: 'npx tsc --noEmit', text: out.join('\n'), error: true };
  }
  const f = pick(r, sourcePool());
  push(`diff --git a/${f.path} b/${f.path}`);
  push(`--- a/${f.path}\n+++ b/${f.path}`);
  while (size < bytes) {
    push(`@@ -${int(r, 1, 900)},7 +${int(r, 1, 900)},8 @@`);
    for (const line of someLines(r, f, 7)) push(`${pick(r, [' ', ' ', ' ', '-', '+'])}${line}`);
  }
  return { command: 'git diff', text: out.join('\n'), error: false };
}

export interface BenchSessionOptions {
  messages: number;
  seed?: number;
}

/**
 * A valid (alternating, every tool_use answered) session of exactly `messages` messages, about 100
 * o200k tokens per message.
 */
export function benchSession(o: BenchSessionOptions): Message[] {
  const r = rng(o.seed ?? 7);
  const files = sourcePool();
  const out: Message[] = [];
  let id = 0;
  let toolId = 0;
  let chars = 0;
  const next = () => `msg_${(id++).toString(36).padStart(5, '0')}`;
  const add = (m: Message) => {
    out.push(m);
    chars += JSON.stringify(m.content).length;
  };
  const budget = (messages: number) => CHARS_PER_TOKEN_ESTIMATE * TARGET_TOKENS_PER_MESSAGE * messages;
  const overBudget = () => chars > 1.15 * budget(out.length + 10);
  /** Room left before the session would run 15% over budget a few messages from now. */
  const room = () => 1.15 * budget(out.length + 10) - chars;

  while (out.length < o.messages) {
    const remaining = o.messages - out.length;
    if (remaining <= 2) {
      // Pad the end with a short prompt / answer so the count is exact and roles alternate.
      add({ id: next(), role: 'user', content: pick(r, PROMPTS) });
      if (out.length < o.messages) add({ id: next(), role: 'assistant', content: [{ type: 'text', text: pick(r, SAY) }] });
      continue;
    }
    add({
      id: next(),
      role: 'user',
      content: r() < 0.1 ? `${pick(r, PROMPTS)}\n\n${commandOutput(r, int(r, 200, 1500)).text}` : pick(r, PROMPTS),
    });
    const exchanges = int(r, 1, 12);
    for (let e = 0; e < exchanges && out.length < o.messages - 2; e++) {
      const calls = r() < 0.15 ? int(r, 2, 3) : 1;
      const uses: ContentBlock[] = [];
      const results: ContentBlock[] = [];
      if (r() < 0.2)
        uses.push({
          type: 'thinking',
          thinking: Array.from({ length: int(r, 1, 4) }, () => pick(r, THINK)).join(''),
          signature: `sig${toolId}`,
        });
      if (r() < 0.5) uses.push({ type: 'text', text: pick(r, SAY) });
      for (let c = 0; c < calls; c++) {
        toolId++;
        const tid = `toolu_01${Array.from({ length: 22 }, () => ID_CHARS[Math.floor(r() * ID_CHARS.length)]).join('')}`;
        const f = pick(r, files);
        const kind = r();
        if (kind < 0.2) {
          // Read: 1-40 KB, small files far more common (1 KB * 40^(u^3)).
          const bytes = Math.max(1_000, Math.min(room(), Math.round(1_000 * Math.pow(40, Math.pow(r(), 3)))));
          uses.push({ type: 'tool_use', id: tid, name: 'read_file', input: { path: f.path } });
          results.push({ type: 'tool_result', tool_use_id: tid, content: readText(r, f, bytes) });
        } else if (kind < 0.35) {
          const out = commandOutput(r, overBudget() ? 150 : int(r, 100, 2_500));
          uses.push({ type: 'tool_use', id: tid, name: 'run_command', input: { command: out.command } });
          results.push({ type: 'tool_result', tool_use_id: tid, content: out.text, ...(out.error && r() < 0.5 ? { is_error: true } : {}) });
        } else if (kind < 0.58) {
          const hits = Array.from({ length: int(r, 0, 8) }, () => {
            const g = pick(r, files);
            const line = int(r, 1, g.lines.length);
            return `${g.path}:${line}:${g.lines[line - 1].trim().slice(0, 120)}`;
          });
          uses.push({
            type: 'tool_use',
            id: tid,
            name: 'search',
            input: { pattern: pick(r, ['isLeap(', 'retry', 'export function', 'TODO', 'new Map(']), path: 'src' },
          });
          results.push({ type: 'tool_result', tool_use_id: tid, content: hits.length ? hits.join('\n') : 'No matches found' });
        } else if (kind < 0.82) {
          const old = someLines(r, f, int(r, 1, 4)).join('\n');
          uses.push({
            type: 'tool_use',
            id: tid,
            name: 'edit_file',
            input: {
              path: f.path,
              old_string: old,
              new_string: old.replace(/\b(\w)(\w*)\b/, (_m, a: string, b: string) => a.toUpperCase() + b) + '\n  // handled',
            },
          });
          results.push({ type: 'tool_result', tool_use_id: tid, content: `Edited ${f.path}: 1 replacement.` });
        } else if (kind < 0.92) {
          const names = Array.from({ length: int(r, 3, 15) }, () => pick(r, files).path);
          uses.push({ type: 'tool_use', id: tid, name: 'list_files', input: { pattern: 'src/**/*.ts' } });
          results.push({ type: 'tool_result', tool_use_id: tid, content: names.join('\n') });
        } else {
          const content = someLines(r, f, int(r, 5, overBudget() ? 8 : 40)).join('\n');
          uses.push({ type: 'tool_use', id: tid, name: 'write_file', input: { path: `src/generated/${toolId}.ts`, content } });
          results.push({
            type: 'tool_result',
            tool_use_id: tid,
            content: `Wrote ${content.length} characters to src/generated/${toolId}.ts.`,
          });
        }
      }
      add({ id: next(), role: 'assistant', content: uses });
      add({ id: next(), role: 'user', content: results });
    }
    add({
      id: next(),
      role: 'assistant',
      content: [{ type: 'text', text: `${pick(r, SAY)} Done: ${pick(r, PROMPTS).toLowerCase()} is handled and the tests pass.` }],
    });
  }
  return out;
}

/** One more exchange of typical size (a 4 KB read), appended per simulated turn by the per-turn benches. */
export function benchExchange(turn: number, seed = 99): [Message, Message] {
  const r = rng(seed + turn);
  const f = pick(r, sourcePool());
  const tid = `toolu_bench_${turn}`;
  return [
    { id: `turn_${turn}_a`, role: 'assistant', content: [{ type: 'tool_use', id: tid, name: 'read_file', input: { path: f.path } }] },
    { id: `turn_${turn}_u`, role: 'user', content: [{ type: 'tool_result', tool_use_id: tid, content: readText(r, f, 4_000) }] },
  ];
}

// A small recording as an importer returns it: a Claude Code session with two compactions done by
// Claude Code (the first automatic, the second manual), artefacts, and recorded usage on every model
// call. The usage is exactly `prefix + factor × (o200k-like count of the call's input)` under the
// counter given, so a calibration fitted from it must find `prefix` again.
import { recordedInputTokens, type Message, type RecordedUsage } from '../../src/core/conversation/conversation';
import type { ImportResult, RecordedCompaction } from '../../src/core/importers';
import type { MessageTokenCounter } from '../../src/core/counting/tokens';
import { assistant, call, results, summary, user } from './build';

export const RECORDING_PREFIX = 20_000;
export const RECORDING_FACTOR = 1.25;
export const RECORDING_MODEL = 'claude-opus-4-5-20251101';

const artefact = (id: string, text: string, kind: Message['artefact']): Message => ({ id, role: 'user', content: text, artefact: kind });
const long = (label: string, n: number) => `${label} `.repeat(n);

/** The three contexts: before compaction 1, before compaction 2, and the current one. */
function contexts(): Message[][] {
  const h0: Message[] = [
    user('p1', 'Fix the flaky upload test in the cipher box backend'),
    call('c1', ['t1', 'Read']),
    results('r1', ['t1', long('upload.test.ts line', 300)]),
    assistant('a1', 'The test races the upload worker. I will await the queue drain.'),
    artefact('x1', '<command-name>/compact</command-name>', 'command'),
  ];
  const h1: Message[] = [
    summary('s1', 'Summary 1: the user asked to fix the flaky upload test; the race is in the worker.'),
    user('p2', 'Now make the retry logic configurable'),
    call('c2', ['t2', 'Edit']),
    results('r2', ['t2', long('patched retry.ts', 200)]),
    assistant('a2', 'Retries are configurable through UPLOAD_RETRIES.'),
    artefact('x2', '[Request interrupted by user]', 'interruption'),
  ];
  const current: Message[] = [
    summary('s2', 'Summary 2: flaky test fixed; retries configurable; next: document the setting.'),
    user('p3', 'Document the new setting in the README'),
    call('c3', ['t3', 'Write']),
    results('r3', ['t3', 'README.md written']),
    artefact('x3', '<task-notification>build finished</task-notification>', 'notification'),
    assistant('a3', 'Documented UPLOAD_RETRIES in the README.'),
  ];
  return [h0, h1, current];
}

/** Recorded usage on every assistant message: prefix + factor × the count of what came before it. */
function withUsage(context: Message[], counter: MessageTokenCounter): Message[] {
  return context.map((m, i) => {
    if (m.role !== 'assistant') return m;
    const total = RECORDING_PREFIX + Math.round(RECORDING_FACTOR * counter.countMessages(context.slice(0, i)));
    const usage: RecordedUsage = {
      inputTokens: 3,
      cacheReadTokens: Math.floor(total * 0.8),
      cacheCreationTokens: total - 3 - Math.floor(total * 0.8),
      outputTokens: 40 + i,
      model: RECORDING_MODEL,
    };
    return { ...m, usage };
  });
}

/** The recording, its usage shaped under `counter`; `contextWindow` as Codex would record it. */
export function syntheticRecording(counter: MessageTokenCounter, contextWindow?: number): ImportResult {
  const [h0, h1, current] = contexts().map((c) => withUsage(c, counter));
  const compactions: RecordedCompaction[] = [
    {
      source: 'claude-code-jsonl',
      trigger: 'auto',
      preTokens: 167_000,
      line: 12,
      at: Date.UTC(2026, 10, 20, 9),
      before: h0,
      summary: [h1[0]],
    },
    { source: 'claude-code-jsonl', trigger: 'manual', preTokens: 98_500, line: 31, before: h1, summary: [current[0]] },
  ];
  const result: ImportResult = {
    format: 'claude-code-jsonl',
    messages: current,
    compactions,
    model: RECORDING_MODEL,
    warnings: [],
  };
  if (contextWindow !== undefined) result.contextWindow = contextWindow;
  return result;
}

/** The last recorded call's real input in `messages`. */
export function lastRecordedInput(messages: readonly Message[]): number {
  const u = [...messages].reverse().find((m) => m.usage)?.usage;
  if (!u) throw new Error('no recorded usage');
  return recordedInputTokens(u);
}

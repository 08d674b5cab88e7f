// Codex rollout importer on the real recorded rollouts in test/fixtures/real-sessions/. Every
// expectation is read from the raw file independently of the importer: compacted lines, prompts typed,
// token_count calls, the context window and model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isTurnStart, recordedInputTokens, textOf, toApiMessages, type Message } from '../../../src/core/conversation/conversation';
import { requestViolations } from '../../../src/core/conversation/invariants';
import { importSession } from '../../../src/core/importers';
import { createTokenizer } from '../../../src/core/counting/tokenizers';
import { countMessageWith } from '../../../src/core/counting/tokens';

const REAL = join(import.meta.dirname ?? __dirname, '..', '..', 'fixtures', 'real-sessions');

interface Raw {
  compactedLines: number[];
  prompts: Set<string>;
  /** Model calls: token_count events with a non-zero last usage whose totals moved. */
  calls: Array<{ input: number }>;
  contextWindow: number | undefined;
  model: string | undefined;
}

/** The fields of a rollout line this test reads. */
interface RawLine {
  type: string;
  payload: {
    type?: string;
    model?: unknown;
    message?: string;
    info?: {
      model_context_window?: number;
      total_token_usage?: unknown;
      last_token_usage: { input_tokens: number; total_tokens: number };
    } | null;
  };
}

function readRaw(text: string): Raw {
  const raw: Raw = { compactedLines: [], prompts: new Set(), calls: [], contextWindow: undefined, model: undefined };
  let lastTotal = '';
  text.split('\n').forEach((json, i) => {
    if (json.trim() === '') return;
    const { type, payload } = JSON.parse(json) as RawLine;
    if (type === 'compacted') raw.compactedLines.push(i + 1);
    if (type === 'turn_context' && typeof payload.model === 'string') raw.model = payload.model;
    if (type !== 'event_msg') return;
    if (payload.type === 'user_message' && payload.message !== undefined) raw.prompts.add(payload.message);
    if (payload.type === 'token_count' && payload.info) {
      raw.contextWindow = payload.info.model_context_window ?? raw.contextWindow;
      const total = JSON.stringify(payload.info.total_token_usage);
      const last = payload.info.last_token_usage;
      if (total !== lastTotal && last.total_tokens > 0) raw.calls.push({ input: last.input_tokens });
      lastTotal = total;
    }
  });
  return raw;
}

const tokenizer = createTokenizer('gpt-tokenizer');
const tokens = (messages: readonly Message[]) => messages.reduce((sum, m) => sum + countMessageWith(tokenizer, m), 0);

for (const [name, expectedCompactions] of [
  ['codex-agentv-a.jsonl', 1],
  ['codex-agentv-b.jsonl', 2],
] as const) {
  test(`real rollout ${name}: ${expectedCompactions} compaction(s); the current context is what the model saw`, () => {
    const path = join(REAL, name);
    assert.ok(
      existsSync(path),
      `${path} is missing: the real sessions live in test/fixtures/real-sessions/ (copied into the repository with their licences)`,
    );
    const text = readFileSync(path, 'utf8');
    const raw = readRaw(text);
    const r = importSession(text, name);

    assert.equal(r.format, 'codex-rollout-jsonl');
    assert.equal(r.compactions.length, expectedCompactions);
    assert.deepEqual(
      r.compactions.map((c) => c.line),
      raw.compactedLines,
    );
    assert.equal(r.contextWindow, raw.contextWindow);
    assert.equal(r.model, raw.model);

    // The current context fits the recorded window and is below what the API counted for the last call
    // (which also holds the instructions, tool definitions and reasoning the rollout does not carry).
    const lastRecorded = raw.calls[raw.calls.length - 1].input;
    const current = tokens(r.messages);
    assert.ok(current < (r.contextWindow ?? 0), `current context ${current} o200k tokens exceeds the window ${r.contextWindow}`);
    assert.ok(current <= lastRecorded, `current context ${current} > the last recorded input ${lastRecorded}`);
    assert.ok(current >= lastRecorded / 2, `current context ${current} is under half the last recorded input ${lastRecorded}`);
    for (const c of r.compactions) {
      assert.equal(c.trigger, 'auto');
      assert.ok(c.preTokens !== null && c.preTokens <= (r.contextWindow ?? 0), `preTokens ${c.preTokens}`);
      assert.ok(tokens(c.before) <= c.preTokens, 'the archived context is no larger than the recorded pre-compaction count');
      assert.deepEqual(requestViolations(toApiMessages(c.before)), []);
    }
    assert.deepEqual(requestViolations(toApiMessages(r.messages)), []);

    // Every prompt typed is a genuine prompt somewhere in the history; artefacts never are.
    const history = [...r.compactions.flatMap((c) => c.before), ...r.messages];
    const promptTexts = new Set(history.filter(isTurnStart).map((m) => textOf(m)));
    assert.deepEqual([...promptTexts].sort(), [...raw.prompts].sort());
    assert.ok(
      history.some((m) => m.artefact === 'interruption'),
      'the <turn_aborted> note is an interruption artefact',
    );

    // Every recorded call's usage sits on the assistant message of that call, in order.
    const recorded = history.filter((m) => m.usage).map((m) => recordedInputTokens(m.usage!));
    assert.deepEqual(
      recorded,
      raw.calls.map((c) => c.input),
    );
    assert.ok(r.warnings.every((w) => w.startsWith(`${name}:`)));
    assert.ok(!r.warnings.some((w) => /unknown/.test(w)), `every item type is handled: ${r.warnings.join('\n')}`);
  });
}

// The loopback server's server-side context management, driven through the real @anthropic-ai/sdk's
// beta messages API: malformed edits are 400s naming the field, clear_tool_uses clears before counting
// and reports applied_edits, compaction returns a compaction block (streamed and not), pauses when asked,
// fails with null content when scripted to, and ignores what precedes a compaction block sent back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { LoopbackAnthropic, type WireMessage } from './anthropic-server';
import { CLEARED_PLACEHOLDER, COMPACT_BETA, CONTEXT_MANAGEMENT_BETA } from './contextManagement';

const MODEL = 'claude-loopback';
const BIG = Array.from({ length: 400 }, (_, i) => `line ${i}: const value${i} = compute(${i}, "${'x'.repeat(i % 7)}");`).join('\n');

/** A history of `n` read_file exchanges with large results, then a prompt. */
function toolHistory(n: number): Anthropic.Beta.Messages.BetaMessageParam[] {
  const out: Anthropic.Beta.Messages.BetaMessageParam[] = [{ role: 'user', content: 'Read the files.' }];
  for (let i = 0; i < n; i++) {
    out.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_${i}`, name: i === 0 ? 'search' : 'read_file', input: { path: `f${i}.ts` } }],
    });
    out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: `${i}\n${BIG}` }] });
  }
  out.push({ role: 'user', content: 'Now summarize.' });
  return out;
}

async function withServer(fn: (server: LoopbackAnthropic, client: Anthropic) => Promise<void>, tokenScale = 1): Promise<void> {
  const server = new LoopbackAnthropic({ contextWindows: { [MODEL]: 50_000_000 }, tokenScale });
  const { baseURL } = await server.start();
  try {
    await fn(server, new Anthropic({ apiKey: 'sk-test', baseURL, maxRetries: 0 }));
  } finally {
    await server.close();
  }
}

test('malformed context_management is a 400 naming the field, like the API', async () => {
  await withServer(async (server, client) => {
    const base = { model: MODEL, max_tokens: 100, messages: [{ role: 'user' as const, content: 'hi' }] };
    const cases: Array<[unknown, string[], RegExp]> = [
      [
        { edits: [{ type: 'clear_tool_uses_20250919', keep: { type: 'tool_uses', value: -1 } }] },
        [CONTEXT_MANAGEMENT_BETA],
        /edits\.0\.keep\.value: Input should be greater than or equal to 0/,
      ],
      [
        { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'messages', value: 3 } }] },
        [CONTEXT_MANAGEMENT_BETA],
        /edits\.0\.trigger\.type/,
      ],
      [
        { edits: [{ type: 'clear_tool_uses_20250919', bogus: 1 }] },
        [CONTEXT_MANAGEMENT_BETA],
        /edits\.0\.bogus: Extra inputs are not permitted/,
      ],
      [
        { edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 1000 } }] },
        [COMPACT_BETA],
        /greater than or equal to 50000/,
      ],
      [{ edits: [{ type: 'compact_20260112' }] }, [CONTEXT_MANAGEMENT_BETA], /requires the .+anthropic-beta: compact-2026-01-12.+ header/],
      [{ edits: [{ type: 'clear_tool_uses_20250919' }] }, [], /requires the .+anthropic-beta: context-management-2025-06-27.+ header/],
      [{ edits: [{ type: 'nope' }] }, [CONTEXT_MANAGEMENT_BETA], /does not match any of the expected tags/],
      [{ edits: {} }, [CONTEXT_MANAGEMENT_BETA], /edits: Input should be a valid list/],
    ];
    for (const [cm, betas, message] of cases) {
      await assert.rejects(
        client.beta.messages.create({ ...base, betas, context_management: cm as Anthropic.Beta.Messages.BetaContextManagementConfig }),
        (e: unknown) => e instanceof Anthropic.BadRequestError && message.test(e.message),
        JSON.stringify(cm),
      );
    }
    assert.equal(server.messageRequests.length, cases.length);
    assert.ok(server.messageRequests.every((r) => r.status === 400));
  });
});

test('clear_tool_uses clears the oldest results before counting and reports applied_edits', async () => {
  await withServer(async (server, client) => {
    const messages = toolHistory(5);
    const full = server.countTokens({ model: MODEL, messages: messages as WireMessage[] });
    server.queue.text('Summary.');
    const edit = {
      type: 'clear_tool_uses_20250919' as const,
      trigger: { type: 'input_tokens' as const, value: 1000 },
      keep: { type: 'tool_uses' as const, value: 2 },
      exclude_tools: ['search'],
    };
    const reply = await client.beta.messages
      .stream({ model: MODEL, max_tokens: 200, messages, betas: [CONTEXT_MANAGEMENT_BETA], context_management: { edits: [edit] } })
      .finalMessage();
    const applied = reply.context_management?.applied_edits ?? [];
    assert.equal(applied.length, 1);
    const a = applied[0] as Anthropic.Beta.Messages.BetaClearToolUses20250919EditResponse;
    // 5 tool uses, keep 2, search (the first) excluded: toolu_1 and toolu_2 are cleared.
    assert.equal(a.cleared_tool_uses, 2);
    assert.equal(reply.usage.input_tokens, full - a.cleared_input_tokens);
    assert.ok(a.cleared_input_tokens > 1000);
    const seen = server.messageRequests[0].body.messages!;
    assert.match(JSON.stringify(seen), new RegExp(`line 399`), 'the request as sent is unmodified');
    const managed = (server.messageRequests[0] as { managed?: { body: { messages?: WireMessage[] } } }).managed!.body.messages!;
    const results = managed.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'tool_result');
    assert.deepEqual(
      results.map((b) => b.content === CLEARED_PLACEHOLDER),
      [false, true, true, false, false],
    );

    // Below clear_at_least: nothing cleared, an empty applied_edits.
    server.queue.text('Again.');
    const again = await client.beta.messages.create({
      model: MODEL,
      max_tokens: 200,
      messages,
      betas: [CONTEXT_MANAGEMENT_BETA],
      context_management: { edits: [{ ...edit, clear_at_least: { type: 'input_tokens', value: 10_000_000 } }] },
    });
    assert.deepEqual(again.context_management, { applied_edits: [] });
    assert.equal(again.usage.input_tokens, full);
  });
});

test('compaction: a block opens the reply, pause returns it alone, null content is a failed no-op, what precedes a sent-back block is ignored', async () => {
  await withServer(async (server, client) => {
    const messages = toolHistory(3);
    const compact = { type: 'compact_20260112' as const, trigger: { type: 'input_tokens' as const, value: 50_000 } };
    const full = server.countTokens({ model: MODEL, messages: messages as WireMessage[] });
    assert.ok(full > 50_000, `fixture is over the trigger (${full})`);

    server.compactionSummaries.push('The user asked to read three files; they define value0..value399.');
    server.queue.text('Here is the summary.');
    const r1 = await client.beta.messages
      .stream({ model: MODEL, max_tokens: 1000, messages, betas: [COMPACT_BETA], context_management: { edits: [compact] } })
      .finalMessage();
    assert.equal(r1.content[0].type, 'compaction');
    assert.equal(
      (r1.content[0] as Anthropic.Beta.Messages.BetaCompactionBlock).content,
      'The user asked to read three files; they define value0..value399.',
    );
    assert.equal(r1.content[1].type, 'text');
    assert.ok(r1.usage.input_tokens < 1000, `the model continued from the summary (${r1.usage.input_tokens})`);

    // The block sent back: the API ignores everything before it (no new compaction; small input).
    server.queue.text('Continuing.');
    const next = [
      ...messages,
      { role: 'assistant' as const, content: r1.content as Anthropic.Beta.Messages.BetaContentBlockParam[] },
      { role: 'user' as const, content: 'Go on.' },
    ];
    const r2 = await client.beta.messages.create({
      model: MODEL,
      max_tokens: 1000,
      messages: next,
      betas: [COMPACT_BETA],
      context_management: { edits: [compact] },
    });
    assert.equal(r2.content[0].type, 'text');
    assert.ok(r2.usage.input_tokens < 1000, `${r2.usage.input_tokens}`);

    // pause_after_compaction: the block alone, stop_reason compaction; the scripted reply waits.
    server.queue.text('After the pause.');
    const r3 = await client.beta.messages.create({
      model: MODEL,
      max_tokens: 1000,
      messages,
      betas: [COMPACT_BETA],
      context_management: { edits: [{ ...compact, pause_after_compaction: true }] },
    });
    assert.equal(r3.stop_reason, 'compaction');
    assert.deepEqual(
      r3.content.map((b) => b.type),
      ['compaction'],
    );
    assert.equal(server.queue.length, 1);

    // A scripted failure: content null, and the model saw the whole context.
    server.queue.clear().text('No summary this time.');
    server.compactionSummaries.push(null);
    const r4 = await client.beta.messages
      .stream({ model: MODEL, max_tokens: 1000, messages, betas: [COMPACT_BETA], context_management: { edits: [compact] } })
      .finalMessage();
    assert.equal(r4.content[0].type, 'compaction');
    assert.equal((r4.content[0] as Anthropic.Beta.Messages.BetaCompactionBlock).content, null);
    assert.equal(r4.usage.input_tokens, full);

    // Null-content blocks sent back are no-ops; an empty string, or a block in a user message, is a 400.
    server.queue.text('Fine.');
    const withNull = [
      ...messages,
      {
        role: 'assistant' as const,
        content: [
          { type: 'compaction' as const, content: null },
          { type: 'text' as const, text: 'x' },
        ],
      },
      { role: 'user' as const, content: 'More.' },
    ];
    const r5 = await client.beta.messages.create({ model: MODEL, max_tokens: 1000, messages: withNull, betas: [COMPACT_BETA] });
    assert.ok(r5.usage.input_tokens >= full);
    const empty = [
      ...withNull.slice(0, -2),
      { role: 'assistant' as const, content: [{ type: 'compaction' as const, content: '' }] },
      { role: 'user' as const, content: 'More.' },
    ];
    await assert.rejects(
      client.beta.messages.create({ model: MODEL, max_tokens: 1000, messages: empty, betas: [COMPACT_BETA] }),
      /must not be empty/,
    );
    const misplaced = [
      { role: 'user' as const, content: [{ type: 'compaction' as const, content: 'x' }] },
    ] as Anthropic.Beta.Messages.BetaMessageParam[];
    await assert.rejects(
      client.beta.messages.create({ model: MODEL, max_tokens: 1000, messages: misplaced, betas: [COMPACT_BETA] }),
      /only allowed in assistant messages/,
    );
  }, 20);
});

test('count_tokens applies the edits too and reports the original count', async () => {
  await withServer(async (server, client) => {
    const messages = toolHistory(4);
    const full = server.countTokens({ model: MODEL, messages: messages as WireMessage[] });
    const counted = await client.beta.messages.countTokens({
      model: MODEL,
      messages,
      betas: [CONTEXT_MANAGEMENT_BETA],
      context_management: {
        edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 100 }, keep: { type: 'tool_uses', value: 1 } }],
      },
    });
    assert.equal(counted.context_management?.original_input_tokens, full);
    assert.ok(counted.input_tokens < full / 2);
  });
});

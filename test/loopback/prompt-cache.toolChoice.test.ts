// The loopback prompt cache and tool_choice, through the real @anthropic-ai/sdk: the API documents that
// a change of tool_choice invalidates the cached message blocks but not the tools or the system prompt
// ("Changes to tool_choice parameter only affect message blocks"). This is why the summary request
// (issue 21 §5) keeps tool_choice as the conversation sends it and asks for text in its instruction.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { LoopbackAnthropic, countTextTokens } from './anthropic-server';

const MODEL = 'claude-cache-test';
const EPHEMERAL = { type: 'ephemeral' } as const;
const server = new LoopbackAnthropic({ promptCache: { minTokens: 100, now: () => 1_000_000 } });
let client: Anthropic;

const SYSTEM = `System: ${'rule '.repeat(150)}`;
const HISTORY = `History: ${'step '.repeat(300)}`;
const TOOL: Anthropic.Tool = { name: 'read_file', description: 'Read a file.', input_schema: { type: 'object', properties: {} } };

before(async () => {
  const { baseURL } = await server.start();
  client = new Anthropic({ apiKey: 'test', baseURL, maxRetries: 0 });
});
after(() => server.close());
beforeEach(() => {
  server.reset();
  server.clearPromptCache();
});

function body(toolChoice?: Anthropic.ToolChoice): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model: MODEL,
    max_tokens: 20,
    tools: [{ ...TOOL, cache_control: EPHEMERAL }],
    system: [{ type: 'text', text: SYSTEM, cache_control: EPHEMERAL }],
    messages: [{ role: 'user', content: [{ type: 'text', text: HISTORY, cache_control: EPHEMERAL }] }],
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
  };
}

test('the same request with tool_choice unset (or auto) reads the whole prefix back', async () => {
  server.queue.text('one').text('two').text('three');
  const first = await client.messages.create(body());
  const whole = first.usage.cache_creation_input_tokens ?? 0;
  assert.ok(whole >= countTextTokens(HISTORY));
  const again = await client.messages.create(body());
  assert.equal(again.usage.cache_read_input_tokens, whole);
  const auto = await client.messages.create(body({ type: 'auto' }));
  assert.equal(auto.usage.cache_read_input_tokens, whole, 'auto is the default: the same cache');
});

test('tool_choice none: tools and system are still read, the messages are not', async () => {
  server.queue.text('one').text('two');
  const first = await client.messages.create(body());
  const whole = first.usage.cache_creation_input_tokens ?? 0;
  const none = await client.messages.create(body({ type: 'none' }));
  const history = whole - (none.usage.cache_read_input_tokens ?? 0);
  assert.ok((none.usage.cache_read_input_tokens ?? 0) > 0, 'tools + system read');
  assert.ok(history >= countTextTokens(HISTORY), 'the message blocks were not read');
  assert.equal(none.usage.cache_creation_input_tokens, history, 'and are written again under the new tool_choice');
});

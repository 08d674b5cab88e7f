// Where the agent's cache breakpoints sit, block by block (the property test counts them; these say
// which blocks carry them): the tools' breakpoint is on the LAST tool definition, so the cached prefix
// covers every tool; a history breakpoint never lands on a text block that is empty or only whitespace
// (the API rejects cache_control there), it moves back to the nearest block that can carry one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import { isCacheableBlock, withPromptCaching } from '../../src/agent/loop/promptCache';

const tool = (name: string): Anthropic.Tool => ({ name, description: `${name} tool`, input_schema: { type: 'object', properties: {} } });

function params(
  messages: Anthropic.MessageParam[],
  tools = [tool('read_file'), tool('search'), tool('edit_file')],
): Anthropic.MessageStreamParams {
  return { model: 'claude-sonnet-4-5', max_tokens: 1024, system: 'You are a test.', tools, messages };
}

/** The names of the tools that carry cache_control. */
function markedTools(p: Anthropic.MessageStreamParams): string[] {
  return ((p.tools ?? []) as Array<{ name?: string; cache_control?: unknown }>)
    .filter((t) => t.cache_control !== undefined)
    .map((t) => String(t.name));
}

/** [message index, block index, block type] of every message block that carries cache_control. */
function markedBlocks(p: Anthropic.MessageStreamParams): Array<[number, number, string]> {
  const out: Array<[number, number, string]> = [];
  p.messages.forEach((m, i) => {
    if (typeof m.content === 'string') return;
    m.content.forEach((b, j) => {
      if ((b as { cache_control?: unknown }).cache_control !== undefined) out.push([i, j, b.type]);
    });
  });
  return out;
}

test('the tools breakpoint is on the last tool definition, and only there', () => {
  for (const caching of ['5m', '1h'] as const) {
    const out = withPromptCaching(params([{ role: 'user', content: 'Hi.' }]), caching);
    assert.deepEqual(markedTools(out), ['edit_file'], caching);
    const one = withPromptCaching(params([{ role: 'user', content: 'Hi.' }], [tool('only')]), caching);
    assert.deepEqual(markedTools(one), ['only'], caching);
  }
});

test('a text block that is empty or only whitespace cannot carry a breakpoint: the history breakpoint moves to the block before', () => {
  for (const blank of ['', ' ', '\n\n', ' \t\n ']) {
    assert.equal(isCacheableBlock({ type: 'text', text: blank }), false, JSON.stringify(blank));
    const out = withPromptCaching(
      params([
        { role: 'user', content: 'Read the file.' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
            { type: 'text', text: blank },
          ],
        },
      ]),
      '5m',
    );
    assert.deepEqual(markedBlocks(out), [[1, 0, 'tool_use']], `trailing text ${JSON.stringify(blank)}`);
  }
  assert.equal(isCacheableBlock({ type: 'text', text: ' x ' }), true);
});

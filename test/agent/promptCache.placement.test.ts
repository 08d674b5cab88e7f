// Where the agent's cache breakpoints sit, block by block (the property test counts them; these say
// which blocks carry them): the tools' breakpoint is on the LAST tool definition, so the cached prefix
// covers every tool; a history breakpoint never lands on a text block that is empty or only whitespace
// (the API rejects cache_control there), it moves back to the nearest block that can carry one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import { countCacheBreakpoints, isCacheableBlock, withPromptCaching } from '../../src/agent/loop/promptCache';

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

/** `n` tool exchanges after a prompt, as request messages. */
function exchanges(n: number): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [{ role: 'user', content: 'Read the files.' }];
  for (let k = 0; k < n; k++) {
    out.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${k}`, name: 'read_file', input: { path: `f${k}.ts` } }] });
    out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${k}`, content: `content ${k}` }] });
  }
  return out;
}

test('the micro-compaction frontiers get a breakpoint each on the last block before them; the tools yield their slot, never more than 4', () => {
  const messages = exchanges(10);
  // Without frontiers: tools, system, the last block (as before).
  const plain = withPromptCaching(params(messages), '5m');
  assert.deepEqual(markedTools(plain), ['edit_file']);
  assert.deepEqual(markedBlocks(plain), [[20, 0, 'tool_result']]);
  // One frontier (7 request messages stable): its last block carries one; the tools keep theirs (a slot is left).
  const one = withPromptCaching(params(messages), '5m', [7]);
  assert.deepEqual(markedBlocks(one), [
    [6, 0, 'tool_result'],
    [20, 0, 'tool_result'],
  ]);
  assert.deepEqual(markedTools(one), ['edit_file']);
  assert.equal(countCacheBreakpoints(one), 4);
  // A batch moved it: the old frontier (read) and the new one (written); the system prompt's breakpoint covers the tools.
  const two = withPromptCaching(params(messages), '5m', [7, 15]);
  assert.deepEqual(markedBlocks(two), [
    [6, 0, 'tool_result'],
    [14, 0, 'tool_result'],
    [20, 0, 'tool_result'],
  ]);
  assert.deepEqual(markedTools(two), []);
  assert.equal(countCacheBreakpoints(two), 4);
  // A frontier at or past the last block adds nothing.
  assert.deepEqual(markedBlocks(withPromptCaching(params(messages), '5m', [21])), [[20, 0, 'tool_result']]);
  // The newest exchange longer than the lookback: its breakpoint first, then the newest frontier; still 4.
  const wide: Anthropic.MessageParam[] = [
    ...messages,
    {
      role: 'assistant',
      content: Array.from({ length: 12 }, (_, k) => ({ type: 'tool_use' as const, id: `w${k}`, name: 'read_file', input: { k } })),
    },
    { role: 'user', content: Array.from({ length: 12 }, (_, k) => ({ type: 'tool_result' as const, tool_use_id: `w${k}`, content: 'x' })) },
  ];
  const crowded = withPromptCaching(params(wide), '5m', [7, 15]);
  assert.equal(countCacheBreakpoints(crowded), 4);
  assert.deepEqual(markedBlocks(crowded), [
    [14, 0, 'tool_result'],
    [20, 0, 'tool_result'],
    [22, 11, 'tool_result'],
  ]);
});

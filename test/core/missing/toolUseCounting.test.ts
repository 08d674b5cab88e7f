// A tool_use's input is part of what the model reads: a 40 KB write_file must count as thousands of
// tokens, not as its name (~10). Checked through the public counter (src/core/index.ts) with the
// default tokenizer, as the agent and the inspector count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTokenizer, DEFAULT_TOKENIZER, MemoizedMessageCounter, type Message } from '../../../src/core';

/** About 40 KB of varied TypeScript (no long runs of one character class). */
function sourceFile(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const signature = `export function handler${i}(request: Request${i % 7}, limit = ${i * 13}): Promise<number>`;
    const line = `${signature} { return compute(request.items[${i % 5}], limit / ${(i % 9) + 1}); }`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

const writeFile = (id: string, content: string): Message => ({
  id,
  role: 'assistant',
  content: [
    { type: 'text', text: 'Writing the handlers.' },
    { type: 'tool_use', id: `toolu_${id}`, name: 'write_file', input: { path: 'src/handlers.ts', content } },
  ],
});

test('a tool_use input is counted: a 40 KB write_file counts as thousands of tokens, as many as its JSON', () => {
  const tokenizer = createTokenizer(DEFAULT_TOKENIZER);
  const counter = new MemoizedMessageCounter(tokenizer);
  const content = sourceFile(40_000);
  assert.ok(content.length >= 40_000);

  const big = writeFile('big', content);
  const empty = writeFile('empty', '');
  const bigTokens = counter.countMessage(big);
  const emptyTokens = counter.countMessage(empty);
  const inputTokens = tokenizer.countText(JSON.stringify({ path: 'src/handlers.ts', content }));

  assert.ok(bigTokens >= 5_000, `a 40 KB write_file counts ${bigTokens} tokens`);
  // The input's own tokens are all there (framing and the text block aside), and not counted twice.
  assert.ok(
    bigTokens - emptyTokens >= tokenizer.countText(content) * 0.95,
    `${bigTokens} - ${emptyTokens} for ${inputTokens} input tokens`,
  );
  assert.ok(bigTokens >= inputTokens, `${bigTokens} >= ${inputTokens}`);
  assert.ok(bigTokens <= inputTokens + 50, `${bigTokens} <= ${inputTokens} + 50`);

  // A conversation carrying it counts it too.
  const convo: Message[] = [{ id: 'u', role: 'user', content: 'Write the handlers' }, big];
  assert.equal(counter.countMessages(convo), counter.countMessage(convo[0]) + bigTokens);
});

test('every field of a tool_use input counts, nested ones too', () => {
  const counter = new MemoizedMessageCounter(createTokenizer(DEFAULT_TOKENIZER));
  const nested = (input: Record<string, unknown>): Message => ({
    id: 'n',
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_n', name: 'edit_file', input }],
  });
  const small = counter.countMessage(nested({ path: 'a.ts', edits: [] }));
  const large = counter.countMessage(
    nested({
      path: 'a.ts',
      edits: Array.from({ length: 200 }, (_, i) => ({ old: `const value${i} = ${i};`, new: `const value${i} = ${i * 2};` })),
    }),
  );
  assert.ok(large - small >= 200 * 10, `200 nested edits add ${large - small} tokens`);
});

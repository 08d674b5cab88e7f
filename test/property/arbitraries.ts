// fast-check generators of valid agent conversations with realistic shapes: parallel tool calls,
// thinking blocks, images, synthetic summaries (and assistant-led tails after them), huge tool
// results, tool results followed by user text, sessions that stop mid tool loop.
import fc from 'fast-check';
import type { ContentBlock, Message } from '../../src/core/conversation/conversation';

interface Draft {
  role: 'user' | 'assistant';
  content: string | ContentBlock[];
  synthetic?: 'summary' | 'placeholder';
}

const word = fc.constantFrom('fix', 'the', 'parser', 'tests', 'fail', 'read', 'src/app.ts', 'why', 'ok', 'done', 'añadir', '日本', '🙂');
const text = fc.array(word, { minLength: 1, maxLength: 12 }).map((w) => w.join(' '));
const toolName = fc.constantFrom('read_file', 'list_files', 'search', 'run_command', 'edit_file');
/** Tool output: usually small, sometimes huge (up to 40 KB). */
const toolOutput = fc.oneof(
  { weight: 5, arbitrary: text },
  { weight: 2, arbitrary: fc.integer({ min: 200, max: 4_000 }).map((n) => 'line of output\n'.repeat(Math.ceil(n / 15))) },
  { weight: 1, arbitrary: fc.integer({ min: 10_000, max: 40_000 }).map((n) => 'x'.repeat(n)) },
);

const image: ContentBlock = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } };

const prompt = fc.record({ t: text, withImage: fc.boolean() }).map(({ t, withImage }): Draft => ({
  role: 'user',
  content: withImage ? [{ type: 'text', text: t }, image] : t,
}));

/** One tool exchange: an assistant message with 1-3 parallel tool_use blocks, then their results. */
const exchange = fc
  .record({
    thinking: fc.boolean(),
    lead: fc.option(text, { nil: undefined }),
    calls: fc.array(fc.record({ name: toolName, output: toolOutput, isError: fc.boolean(), asBlocks: fc.boolean() }), {
      minLength: 1,
      maxLength: 3,
    }),
    trailingText: fc.option(text, { freq: 8, nil: undefined }),
  })
  .map(({ thinking, lead, calls, trailingText }) => (nextId: () => string): Draft[] => {
    const ids = calls.map(() => nextId());
    const assistantBlocks: ContentBlock[] = [];
    if (thinking) assistantBlocks.push({ type: 'thinking', thinking: 'let me look', signature: 'sig' });
    if (lead) assistantBlocks.push({ type: 'text', text: lead });
    calls.forEach((c, i) => assistantBlocks.push({ type: 'tool_use', id: ids[i], name: c.name, input: { arg: c.name } }));
    const resultBlocks: ContentBlock[] = calls.map((c, i) => ({
      type: 'tool_result',
      tool_use_id: ids[i],
      content: c.asBlocks ? [{ type: 'text', text: c.output }] : c.output,
      ...(c.isError ? { is_error: true } : {}),
    }));
    if (trailingText) resultBlocks.push({ type: 'text', text: trailingText });
    return [
      { role: 'assistant', content: assistantBlocks },
      { role: 'user', content: resultBlocks },
    ];
  });

const finalAnswer = fc.record({ thinking: fc.boolean(), t: text }).map(({ thinking, t }): Draft => ({
  role: 'assistant',
  content: thinking
    ? [
        { type: 'thinking', thinking: 'hmm', signature: 's' },
        { type: 'text', text: t },
      ]
    : [{ type: 'text', text: t }],
}));

/** A turn: a prompt, 0-N tool exchanges, and (usually) a final answer. */
const turn = fc.record({
  prompt,
  exchanges: fc.array(exchange, { maxLength: 6 }),
  answer: fc.option(finalAnswer, { freq: 6, nil: undefined }),
});

export interface GeneratedConversation {
  messages: Message[];
}

/** A conversation that is a valid Messages API request (after merging adjacent same-role messages). */
export const conversationArb: fc.Arbitrary<Message[]> = fc
  .record({
    summaries: fc.array(text, { maxLength: 2 }),
    /** After a summary, a previous compaction may have left a tail that opens with an assistant exchange. */
    leadingExchanges: fc.array(exchange, { maxLength: 3 }),
    turns: fc.array(turn, { minLength: 1, maxLength: 8 }),
    /** One long single-prompt session: hundreds of tool calls with no user-turn boundary. */
    longLoop: fc.option(fc.integer({ min: 20, max: 120 }), { freq: 10, nil: undefined }),
  })
  .map(({ summaries, leadingExchanges, turns, longLoop }) => {
    let counter = 0;
    const nextId = () => `toolu_${(counter++).toString(36)}`;
    const drafts: Draft[] = summaries.map((s) => ({ role: 'user', content: `[Earlier context compacted]\n\n${s}`, synthetic: 'summary' }));
    if (drafts.length > 0) for (const ex of leadingExchanges) drafts.push(...ex(nextId));
    turns.forEach((t, i) => {
      const prev = drafts[drafts.length - 1];
      // A prompt right after a dangling tool_result message is fine (they merge); after a prompt is not.
      if (prev && prev.role === 'user' && !Array.isArray(prev.content) && !prev.synthetic)
        drafts.push({ role: 'assistant', content: 'ok' });
      drafts.push(t.prompt);
      for (const ex of t.exchanges) drafts.push(...ex(nextId));
      if (longLoop !== undefined && i === turns.length - 1) {
        for (let k = 0; k < longLoop; k++) {
          const id = nextId();
          drafts.push(
            { role: 'assistant', content: [{ type: 'tool_use', id, name: 'read_file', input: { path: `f${k}.ts` } }] },
            {
              role: 'user',
              content: [{ type: 'tool_result', tool_use_id: id, content: `contents of f${k}.ts `.repeat(k % 7 === 0 ? 400 : 5) }],
            },
          );
        }
      }
      if (t.answer) drafts.push(t.answer);
    });
    return drafts.map((d, i): Message => ({ id: `m${i}`, ...d }));
  });

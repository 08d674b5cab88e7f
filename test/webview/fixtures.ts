// Conversations for the chat webview tests.
import type { ChatItem, ChatState, ContextMeter } from '../../src/protocol';

export const meter = (used: number, window = 200_000, threshold: number | null = 160_000): ContextMeter => ({ used, window, threshold });

export function chatState(items: ChatItem[], over: Partial<ChatState> = {}): ChatState {
  return {
    sessionId: 'session-1',
    title: 'Tokenizer refactor',
    items,
    busy: false,
    compacting: false,
    context: meter(45_210),
    hasApiKey: true,
    model: 'claude-sonnet-4-5',
    trusted: true,
    ...over,
  };
}

export const ANSWER_MD = [
  '## Plan',
  '',
  'I will **memoize** token counts per message and load the ranks *lazily*:',
  '',
  '1. Count each message once',
  '2. Keep the counter behind `MessageTokenCounter`',
  '',
  '```ts',
  'export function count(m: Message): number {',
  '  return cache.get(m.id) ?? measure(m);',
  '}',
  '```',
  '',
  '| encoder | MB/s |',
  '| --- | ---: |',
  '| js-tiktoken | 0.65 |',
  '| gpt-tokenizer | 2.8 |',
  '',
  '> Never recount history per turn.',
  '',
  'See [the design](https://example.com/design) for details.',
].join('\n');

export const DIFF = [
  '--- a/src/core/tokens.ts',
  '+++ b/src/core/tokens.ts',
  '@@ -10,7 +10,9 @@ export class Counter {',
  '   countMessage(m: Message): number {',
  '-    return this.encode(m).length;',
  '+    const hit = this.cache.get(m.id);',
  '+    if (hit !== undefined) return hit;',
  '+    return this.remember(m);',
  '   }',
].join('\n');

/** A conversation with one of everything, the last tool call awaiting approval. */
export function richConversation(): ChatItem[] {
  return [
    { kind: 'user', id: 'u1', text: 'Make token counting faster without changing the counts.' },
    { kind: 'thinking', id: 'th1', text: 'The bench says gpt-tokenizer gives identical counts at 4x the speed…', streaming: false },
    { kind: 'assistant', id: 'a1', text: ANSWER_MD, streaming: false },
    {
      kind: 'tool',
      id: 'toolu_read',
      name: 'read_file',
      input: JSON.stringify({ path: 'src/core/tokens.ts' }, null, 2),
      status: 'done',
      output: Array.from({ length: 150 }, (_, i) => `${String(i + 1).padStart(3)}  line ${i + 1} of tokens.ts`).join('\n'),
      truncated: { originalChars: 48_213 },
    },
    {
      kind: 'compaction',
      id: 'c1',
      strategy: 'recursive-summarization',
      trigger: 'auto',
      tokensBefore: 152_340,
      tokensAfter: 9_812,
      transcriptPath: '/work/.transcripts/session-1/2026-11-22T10-00-00.jsonl',
      archivedCount: 42,
    },
    {
      kind: 'tool',
      id: 'toolu_edit',
      name: 'edit_file',
      input: JSON.stringify({ path: 'src/core/tokens.ts', old: 'return this.encode(m).length;', new: '…' }, null, 2),
      status: 'done',
      output: 'Applied 1 edit.',
      diff: { path: 'src/core/tokens.ts', unified: DIFF, isNewFile: false },
    },
    { kind: 'error', id: 'e1', message: 'Overloaded (529): the API is busy. Nothing was lost.', retryable: true },
    { kind: 'notice', id: 'n1', message: 'Resumed after retry.' },
    { kind: 'assistant', id: 'a2', text: 'Now I will run the tests.', streaming: false },
    {
      kind: 'tool',
      id: 'toolu_run',
      name: 'run_command',
      input: JSON.stringify({ command: 'npm test -- tokens' }, null, 2),
      status: 'awaiting-approval',
      command: 'npm test -- tokens',
    },
  ];
}

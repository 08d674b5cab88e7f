// Token counting interfaces. The concrete encoders live in tokenizers.ts; everything in the engine
// depends only on these two interfaces so the benchmark can decide which encoder is the default.
import type { Message } from '../conversation/conversation';
import { imageBlockTokens } from '../conversation/images';
import { MessageMemo } from '../base/sharded';

/** Counts tokens in a piece of text. Implementations may load their ranks lazily on first use. */
export interface TextTokenizer {
  readonly name: string;
  countText(text: string): number;
}

/** Counts tokens of whole messages. Implementations memoize per message object. */
export interface MessageTokenCounter {
  countMessage(message: Message): number;
  countMessages(messages: readonly Message[]): number;
}

/** The seeds' baseline: about four characters per token. Fast, and about 11% low on agent sessions. */
export class CharEstimateTokenizer implements TextTokenizer {
  readonly name = 'chars/4';
  countText(text: string): number {
    return Math.ceil(text.length / 4);
  }
}

/** Per-message framing the API adds around content (role markers, block headers). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
export const BLOCK_OVERHEAD_TOKENS = 3;

/** Tokens of one message under a text tokenizer: text of every block plus framing overhead. */
export function countMessageWith(tokenizer: TextTokenizer, message: Message): number {
  if (typeof message.content === 'string') return MESSAGE_OVERHEAD_TOKENS + tokenizer.countText(message.content);
  let total = MESSAGE_OVERHEAD_TOKENS;
  for (const block of message.content) total += BLOCK_OVERHEAD_TOKENS + countBlockWith(tokenizer, block);
  return total;
}

function countBlockWith(tokenizer: TextTokenizer, block: Message['content'][number] & object): number {
  const b = block as Record<string, unknown>;
  switch (block.type) {
    case 'text':
      return tokenizer.countText(String(b.text ?? ''));
    case 'thinking':
      return tokenizer.countText(String(b.thinking ?? ''));
    case 'redacted_thinking':
      return tokenizer.countText(String(b.data ?? ''));
    case 'image':
      return imageBlockTokens(b);
    case 'tool_use':
      return tokenizer.countText(String(b.name ?? '')) + tokenizer.countText(JSON.stringify(b.input ?? {}));
    case 'tool_result': {
      const c = b.content;
      if (c === undefined) return 0;
      if (typeof c === 'string') return tokenizer.countText(c);
      let sum = 0;
      for (const inner of c as Array<Record<string, unknown>>) {
        sum +=
          BLOCK_OVERHEAD_TOKENS +
          (inner.type === 'text'
            ? tokenizer.countText(String(inner.text ?? ''))
            : inner.type === 'image'
              ? imageBlockTokens(inner)
              : tokenizer.countText(JSON.stringify(inner)));
      }
      return sum;
    }
    default:
      return tokenizer.countText(JSON.stringify(block));
  }
}

/**
 * Counts each message once and remembers it (keyed by the message object, which the engine never
 * mutates), so re-counting a growing conversation costs only the new messages.
 */
export class MemoizedMessageCounter implements MessageTokenCounter {
  /** Sharded (MessageMemo): a memo of a whole huge session grows without one long rehash. */
  private readonly memo = new MessageMemo<number>();
  constructor(readonly tokenizer: TextTokenizer) {}

  countMessage(message: Message): number {
    let n = this.memo.get(message);
    if (n === undefined) {
      n = countMessageWith(this.tokenizer, message);
      this.memo.set(message, n);
    }
    return n;
  }

  countMessages(messages: readonly Message[]): number {
    let total = 0;
    for (const m of messages) total += this.countMessage(m);
    return total;
  }

  /** The remembered count of `message`, or undefined if it has not been counted yet (never counts). */
  peek(message: Message): number | undefined {
    return this.memo.get(message);
  }

  /**
   * Remember a count computed elsewhere with this counter's tokenizer (the background counter counts
   * large messages piece by piece, then stores the total here). It must equal what countMessage
   * would have returned.
   */
  remember(message: Message, tokens: number): void {
    this.memo.set(message, tokens);
  }
}

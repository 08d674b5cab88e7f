// What every bench section gets: the sessions (generated once), their o200k sizes, the built child
// scripts and a scratch folder.
import type { Message } from '../src/core/conversation/conversation';
import type { BenchSize } from './sessions';

export interface BenchContext {
  sizes: readonly BenchSize[];
  sessions: Map<BenchSize, Message[]>;
  /** o200k tokens of each session (gpt-tokenizer, memoized counter). */
  tokens: Map<BenchSize, number>;
  /** Bundled bench/children/child.ts. */
  childScript: string;
  /** Bundled bench/children/activation.ts. */
  activationScript: string;
  /** Bundled bench/children/hostwait.ts. */
  hostwaitScript: string;
  tmp: string;
  /** `--quick`: fewer repetitions, for trying the bench out. */
  quick: boolean;
}

export function sizeLabel(ctx: BenchContext, size: BenchSize): string {
  const t = ctx.tokens.get(size) ?? 0;
  const tokens = t >= 1e6 ? `${(t / 1e6).toFixed(2)}M` : `${Math.round(t / 1e3)}K`;
  return `${size.toLocaleString('en-US')} msgs (${tokens} tok)`;
}

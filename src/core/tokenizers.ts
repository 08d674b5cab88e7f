// Concrete text tokenizers behind the TextTokenizer interface (tokens.ts): two o200k_base encoders
// (js-tiktoken and gpt-tokenizer, which give identical counts) and the chars/4 estimate.
//
// Loading: the o200k ranks are megabytes of data that take a second or more to parse, so nothing
// is loaded when this module is imported. Each encoder is loaded on the first countText() (or an
// explicit warmup()) through a literal `require(...)` inside a function. The source is compiled to
// CommonJS both by tsx (the package has no "type": "module") and by esbuild (format "cjs"), and
// esbuild keeps a bundled CommonJS module uninitialized until its `require` call runs, so the
// laziness survives bundling.
//
// Sharing: a loaded encoder is an immutable lookup table, so it is kept once per process (per
// encoder name) and shared by every tokenizer instance; creating a second tokenizer never parses
// the ranks again.
import type { Tiktoken } from 'js-tiktoken/lite';
import { CharEstimateTokenizer, type TextTokenizer } from './tokens';

/** Every tokenizer createTokenizer() knows, for settings enums and the benchmark. */
export const TOKENIZER_NAMES = ['js-tiktoken', 'gpt-tokenizer', 'chars/4'] as const;
export type TokenizerName = (typeof TOKENIZER_NAMES)[number];

/**
 * The encoder used unless a setting says otherwise. gpt-tokenizer gives the same o200k_base counts
 * as js-tiktoken (the design card's choice) and was measured about 4-5x faster on this machine,
 * with a faster rank load too (see the report in tokenizers.test.ts and DESIGN.md).
 */
export const DEFAULT_TOKENIZER: TokenizerName = 'gpt-tokenizer';

/** A TextTokenizer whose encoder data loads on first use, with hooks to load it ahead of time. */
export interface LazyTextTokenizer extends TextTokenizer {
  /** True once this encoder's ranks are in memory (shared by all instances in the process). */
  readonly loaded: boolean;
  /** How long loading the ranks took, in ms; undefined until loaded. */
  readonly loadTimeMs: number | undefined;
  /**
   * Loads the ranks now (synchronously; schedule it off the activation path, e.g. with
   * setTimeout). Returns the milliseconds this call spent loading: 0 if already loaded.
   */
  warmup(): number;
}

/** An unknown name was given to createTokenizer (e.g. from a mistyped setting). */
export class UnknownTokenizerError extends Error {
  constructor(readonly tokenizer: string) {
    super(`unknown tokenizer "${tokenizer}"; known tokenizers: ${TOKENIZER_NAMES.join(', ')}`);
    this.name = 'UnknownTokenizerError';
  }
}

/** An encoder's package could not be loaded (missing from the bundle or node_modules, or corrupt). */
export class TokenizerLoadError extends Error {
  constructor(
    readonly tokenizer: string,
    readonly cause: unknown,
  ) {
    super(`could not load the ${tokenizer} tokenizer: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'TokenizerLoadError';
  }
}

/** A tokenizer by name. Creating one is cheap: the real encoders load on first use. */
export function createTokenizer(name: TokenizerName): TextTokenizer {
  switch (name) {
    case 'js-tiktoken':
      return new JsTiktokenTokenizer();
    case 'gpt-tokenizer':
      return new GptTokenizerTokenizer();
    case 'chars/4':
      return new CharEstimateTokenizer();
    default:
      throw new UnknownTokenizerError(String(name));
  }
}

/** Type guard for names coming from settings or the command line. */
export function isTokenizerName(name: string): name is TokenizerName {
  return (TOKENIZER_NAMES as readonly string[]).includes(name);
}

/** Warms up a tokenizer if it loads lazily; returns the ms spent loading (0 for eager ones). */
export function warmupTokenizer(tokenizer: TextTokenizer): number {
  return isLazyTextTokenizer(tokenizer) ? tokenizer.warmup() : 0;
}

export function isLazyTextTokenizer(tokenizer: TextTokenizer): tokenizer is LazyTextTokenizer {
  return typeof (tokenizer as Partial<LazyTextTokenizer>).warmup === 'function';
}

/** A value built once per process on first request, remembering how long building it took. */
class LazyEncoder<E> {
  private value: E | undefined;
  private millis: number | undefined;
  constructor(
    private readonly name: string,
    private readonly build: () => E,
  ) {}

  get loaded(): boolean {
    return this.value !== undefined;
  }

  get loadTimeMs(): number | undefined {
    return this.millis;
  }

  /** The encoder, building it first if needed. */
  get(): E {
    if (this.value === undefined) this.load();
    return this.value as E;
  }

  /** Builds the encoder if needed; returns the ms this call spent building. */
  load(): number {
    if (this.value !== undefined) return 0;
    const started = performance.now();
    try {
      this.value = this.build();
    } catch (error) {
      throw new TokenizerLoadError(this.name, error);
    }
    this.millis = performance.now() - started;
    return this.millis;
  }
}

/** js-tiktoken's CommonJS ranks module exports the ranks object itself; an ES build wraps it. */
type TiktokenRanks = ConstructorParameters<typeof Tiktoken>[0];

const jsTiktokenO200k = new LazyEncoder<Tiktoken>('js-tiktoken', () => {
  const { Tiktoken: TiktokenClass } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');
  const ranksModule = require('js-tiktoken/ranks/o200k_base') as TiktokenRanks | { default: TiktokenRanks };
  const ranks = 'default' in ranksModule ? ranksModule.default : ranksModule;
  return new TiktokenClass(ranks);
});

/** The slice of gpt-tokenizer's encoding API we use. */
interface GptTokenizerEncoding {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string>; allowedSpecial?: Set<string> }): number;
}

const gptTokenizerO200k = new LazyEncoder<GptTokenizerEncoding>('gpt-tokenizer', () => {
  const encoding = require('gpt-tokenizer/encoding/o200k_base') as GptTokenizerEncoding;
  if (typeof encoding.countTokens !== 'function') throw new Error('gpt-tokenizer/encoding/o200k_base has no countTokens');
  return encoding;
});

/**
 * Special-token strings such as "<|endoftext|>" are counted as the plain text they are: no special
 * token is allowed and none is rejected. (Both libraries throw on them by default.)
 */
const JS_TIKTOKEN_NO_SPECIAL: string[] = [];
const GPT_TOKENIZER_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** o200k_base through js-tiktoken (pure JS port of tiktoken): the design card's reference encoder. */
export class JsTiktokenTokenizer implements LazyTextTokenizer {
  readonly name = 'js-tiktoken';

  get loaded(): boolean {
    return jsTiktokenO200k.loaded;
  }

  get loadTimeMs(): number | undefined {
    return jsTiktokenO200k.loadTimeMs;
  }

  warmup(): number {
    return jsTiktokenO200k.load();
  }

  countText(text: string): number {
    if (text.length === 0) return 0;
    return jsTiktokenO200k.get().encode(text, JS_TIKTOKEN_NO_SPECIAL, JS_TIKTOKEN_NO_SPECIAL).length;
  }
}

/** o200k_base through gpt-tokenizer: same counts as js-tiktoken, several times faster. */
export class GptTokenizerTokenizer implements LazyTextTokenizer {
  readonly name = 'gpt-tokenizer';

  get loaded(): boolean {
    return gptTokenizerO200k.loaded;
  }

  get loadTimeMs(): number | undefined {
    return gptTokenizerO200k.loadTimeMs;
  }

  warmup(): number {
    return gptTokenizerO200k.load();
  }

  countText(text: string): number {
    if (text.length === 0) return 0;
    return gptTokenizerO200k.get().countTokens(text, GPT_TOKENIZER_PLAIN_TEXT);
  }
}

// Concrete text tokenizers behind the TextTokenizer interface (tokens.ts): two o200k_base encoders
// (js-tiktoken and gpt-tokenizer, which give identical counts) and the chars/4 estimate.
//
// Loading: the o200k ranks are megabytes of data that take 0.15-1.8 s to parse, so nothing
// is loaded when this module is imported. Each encoder is loaded on the first countText() (or an
// explicit warmup()) through a literal `require(...)` inside a function. The source is compiled to
// CommonJS both by tsx (the package has no "type": "module") and by esbuild (format "cjs"), and
// esbuild keeps a bundled CommonJS module uninitialized until its `require` call runs, so the
// laziness survives bundling.
//
// Sharing: a loaded encoder is an immutable lookup table, so it is kept once per process (per
// encoder name) and shared by every tokenizer instance; creating a second tokenizer never parses
// the ranks again.
//
// Long runs: both libraries byte-pair-encode each pre-tokenized piece in time quadratic in its
// length, and o200k's pre-tokenizer keeps a run of letters, of whitespace or of punctuation as one
// piece. Measured here: 50,000 spaces took js-tiktoken 190 s and gpt-tokenizer 1.4 s; 100,000 CJK
// characters took gpt-tokenizer 54 s. A tool output can contain such a run, and a counter must not
// freeze the extension host, so runs of LONG_RUN_CHARS or more are counted in LONG_RUN_CHARS-sized
// chunks (countInSegments). Text without such runs is counted exactly; a text with one may be off
// by about one token per chunk boundary. Both encoders share the rule, so their counts stay equal.
import type { Tiktoken } from 'js-tiktoken/lite';
import { errorMessage, SplitpointError } from '../base/errors';
import { CharEstimateTokenizer, type TextTokenizer } from './tokens';

/** Every tokenizer createTokenizer() knows, for settings enums and the benchmark. */
export const TOKENIZER_NAMES = ['js-tiktoken', 'gpt-tokenizer', 'chars/4'] as const;
export type TokenizerName = (typeof TOKENIZER_NAMES)[number];

/**
 * The encoder used unless a setting says otherwise. gpt-tokenizer gives the same o200k_base counts
 * as js-tiktoken (the design card's choice) and was faster on every corpus measured on this
 * machine (2 MB each; encode MB/s, gpt-tokenizer vs js-tiktoken): real docs/.d.ts/JSON 8-9 vs
 * 2.5-2.7, varied synthetic 10-11 vs 0.9, repetitive agent-like 15-18 vs 1.3-1.7. Rank load:
 * 150-260 ms vs 560-760 ms; heap after load about 57 MB vs 150 MB.
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
export class UnknownTokenizerError extends SplitpointError {
  constructor(readonly tokenizer: string) {
    super(`unknown tokenizer "${tokenizer}"; known tokenizers: ${TOKENIZER_NAMES.join(', ')}`);
    this.name = 'UnknownTokenizerError';
  }
}

/** An encoder's package could not be loaded (missing from the bundle or node_modules, or corrupt). */
export class TokenizerLoadError extends SplitpointError {
  constructor(
    readonly tokenizer: string,
    cause: unknown,
  ) {
    super(`could not load the ${tokenizer} tokenizer: ${errorMessage(cause)}`, { cause });
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

/** Runs at least this long (in UTF-16 code units) are counted in chunks of this size. */
export const LONG_RUN_CHARS = 256;

/** The two classes of character whose long runs are chunked: letters (with their marks), and punctuation. */
const RUN_CLASSES = [`[\\p{L}\\p{M}]`, `[^\\s\\p{L}\\p{N}]`];

/**
 * The first LONG_RUN_CHARS characters of a run of letters, or of punctuation (the empty group says which
 * class matched). Each alternative only starts where its class starts (the lookbehind), so a scan does not
 * re-read the run at every position. The match has a fixed length: an open-ended `{N,}` over a run of
 * megabytes overflows the regex engine's backtracking stack (RangeError), so RUN_REST extends the run.
 */
const LONG_RUN_START = new RegExp(RUN_CLASSES.map((cls) => `(?<!${cls})${cls}{${LONG_RUN_CHARS}}()`).join('|'), 'gu');

/** More of a run of each class, at most 4096 characters per match (sticky). */
const RUN_REST = RUN_CLASSES.map((cls) => new RegExp(`${cls}{1,4096}`, 'uy'));

/** [start, end) of each run of letters or of punctuation at least LONG_RUN_CHARS long in `stretch`. */
function longNonSpaceRuns(stretch: string): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  LONG_RUN_START.lastIndex = 0;
  for (let match = LONG_RUN_START.exec(stretch); match; match = LONG_RUN_START.exec(stretch)) {
    const rest = RUN_REST[match[1] === undefined ? 1 : 0];
    let end = LONG_RUN_START.lastIndex;
    rest.lastIndex = end;
    while (rest.exec(stretch)) end = rest.lastIndex;
    runs.push([match.index, end]);
    LONG_RUN_START.lastIndex = end;
  }
  return runs;
}

/**
 * Counts `text` with `count`, cutting every long run (see LONG_RUN_CHARS) into chunks so that no
 * piece handed to the encoder is longer than LONG_RUN_CHARS. Text without long runs goes to `count`
 * whole, so its count is exact. Chunks never split a surrogate pair.
 */
export function countInSegments(text: string, count: (segment: string) => number): number {
  if (text.length < LONG_RUN_CHARS) return count(text);
  const runs = findLongRuns(text);
  if (runs.length === 0) return count(text);
  let total = 0;
  let start = 0;
  for (const [runStart, runEnd] of runs) {
    if (runStart > start) total += count(text.slice(start, runStart));
    let chunkStart = runStart;
    while (chunkStart < runEnd) {
      let chunkEnd = Math.min(chunkStart + LONG_RUN_CHARS, runEnd);
      if (chunkEnd < runEnd && isLowSurrogate(text.charCodeAt(chunkEnd))) chunkEnd += 1;
      total += count(text.slice(chunkStart, chunkEnd));
      chunkStart = chunkEnd;
    }
    start = runEnd;
  }
  if (start < text.length) total += count(text.slice(start));
  return total;
}

/**
 * [start, end) of every run of whitespace, letters or punctuation at least LONG_RUN_CHARS long, in
 * order. A linear char-code pass finds long whitespace and long non-whitespace stretches; only the
 * latter (rare) get the Unicode-class regex that picks out letter and punctuation runs.
 */
export function findLongRuns(text: string): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  if (text.length < LONG_RUN_CHARS) return found;
  let stretchStart = 0;
  let stretchIsSpace = isWhitespace(text.charCodeAt(0));
  for (let i = 1; i <= text.length; i++) {
    const space = i < text.length ? isWhitespace(text.charCodeAt(i)) : !stretchIsSpace;
    if (space === stretchIsSpace) continue;
    if (i - stretchStart >= LONG_RUN_CHARS) {
      if (stretchIsSpace) {
        found.push([stretchStart, i]);
      } else {
        for (const [runStart, runEnd] of longNonSpaceRuns(text.slice(stretchStart, i))) {
          found.push([stretchStart + runStart, stretchStart + runEnd]);
        }
      }
    }
    stretchStart = i;
    stretchIsSpace = space;
  }
  return found;
}

/** Exactly the characters of the RegExp class \s (which is what o200k's pattern uses). */
export function isWhitespace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
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
    const encoder = jsTiktokenO200k.get();
    return countInSegments(text, (segment) => encoder.encode(segment, JS_TIKTOKEN_NO_SPECIAL, JS_TIKTOKEN_NO_SPECIAL).length);
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
    const encoding = gptTokenizerO200k.get();
    return countInSegments(text, (segment) => encoding.countTokens(segment, GPT_TOKENIZER_PLAIN_TEXT));
  }
}

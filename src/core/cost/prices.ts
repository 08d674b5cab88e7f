// The price table: USD per million tokens per model id, where each price came from, and the sentence
// that says so when a model is priced by a family fallback (a model the table does not know).
//
// Sources (checked 2026-11): Anthropic's pricing page: cache reads 0.1x input, 5-minute cache writes
// 1.25x, 1-hour writes 2x; Opus 4.5/4.6 $5/$25, Opus 4/4.1 $15/$75, Sonnet 4/4.5/4.6 $3/$15, Haiku 4.5
// $1/$5, Haiku 3.5 $0.80/$4. Long context: a request whose whole input (input + cache reads + cache
// writes) exceeds 200K tokens on the 1M-window beta (Sonnet 4, Sonnet 4.5) is billed entirely at 2x
// input and 1.5x output ($6/$22.50); Opus 4.6 and Sonnet 4.6 had the same premium until their 1M
// window became generally available at standard prices on 2026-03-13. OpenAI's pricing page: GPT-5,
// GPT-5.1 and their codex variants $1.25/$10 (cached input $0.125), GPT-5.2 and 5.2/5.3-codex
// $1.75/$14, GPT-5.4 $2.50/$15, GPT-5.5 $5/$30 (cached 0.1x); GPT-5.4 and 5.5 bill a request over
// 272K input tokens entirely at 2x input and 1.5x output. OpenAI caches automatically: no write premium.
/** USD per million tokens of each kind. */
export interface ModelPrice {
  /** Uncached input tokens. */
  input: number;
  output: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  cacheRead: number;
}

/** A table price: the rates, and those of a long request when the model bills one at a premium. */
export interface TieredPrice extends ModelPrice {
  /**
   * The rates of a request whose whole input (input + cache reads + cache writes) exceeds `aboveTokens`:
   * every token of that request, output included, is billed at them. `until` (epoch ms): the premium
   * applied to requests made before then only (a call without a time is priced at today's rates).
   */
  longContext?: ModelPrice & { aboveTokens: number; until?: number };
}

/** Per-model price overrides: the key is a model id prefix, the longest matching prefix wins. */
export type PriceOverrides = Readonly<Record<string, Partial<ModelPrice>>>;

/** Where a model's price came from: the table's row for it, a family's (or the default) row, or the user's override. */
export type PriceSource = 'table' | 'family-fallback' | 'user';

export interface PriceLookup {
  price: TieredPrice;
  source: PriceSource;
  /** The row that priced it: a model id of the table, a family ("claude-opus-*"), or "default". */
  row: string;
}

interface PriceRow {
  /** A model id (a 'table' row) or a family name (a fallback row). */
  name: string;
  pattern: RegExp;
  price: TieredPrice;
  fallback?: true;
}

/** 2026-03-13: Opus 4.6 and Sonnet 4.6's 1M window generally available, at standard prices. */
const CLAUDE_46_1M_GA = Date.UTC(2026, 2, 13);

function anthropic(input: number, output: number): ModelPrice {
  return { input, output, cacheWrite5m: input * 1.25, cacheWrite1h: input * 2, cacheRead: input / 10 };
}

function openai(input: number, output: number, cacheRead: number): ModelPrice {
  return { input, output, cacheWrite5m: input, cacheWrite1h: input, cacheRead };
}

/** The rates with a long-context premium over `aboveTokens` of input: 2x input (and cache), 1.5x output. */
function premium(rates: ModelPrice, aboveTokens: number, until?: number): TieredPrice {
  const s = (n: number) => n * 2;
  const longContext = {
    aboveTokens,
    input: s(rates.input),
    output: rates.output * 1.5,
    cacheWrite5m: s(rates.cacheWrite5m),
    cacheWrite1h: s(rates.cacheWrite1h),
    cacheRead: s(rates.cacheRead),
    ...(until !== undefined ? { until } : {}),
  };
  return { ...rates, longContext };
}

/** A model id, with or without its date suffix (claude-opus-4-1-20250805, gpt-5-2025-08-07). */
const id = (name: string): RegExp => new RegExp(`^${name.replace(/\./g, '\\.')}(-\\d{8}|-\\d{4}-\\d{2}-\\d{2})?$`);

const row = (name: string, price: TieredPrice, pattern = id(name)): PriceRow => ({ name, pattern, price });
const family = (name: string, pattern: RegExp, price: TieredPrice): PriceRow => ({ name, pattern, price, fallback: true });

const OPUS_45 = anthropic(5, 25);
const SONNET = anthropic(3, 15);
const HAIKU_45 = anthropic(1, 5);
const GPT_5 = openai(1.25, 10, 0.125);
const GPT_52 = openai(1.75, 14, 0.175);
const GPT_55 = premium(openai(5, 30, 0.5), 272_000);

/** First match wins: every known id, then the families. */
const PRICE_ROWS: readonly PriceRow[] = [
  row('claude-opus-4-6', premium(OPUS_45, 200_000, CLAUDE_46_1M_GA)),
  row('claude-opus-4-5', OPUS_45),
  row('claude-opus-4-1', anthropic(15, 75)),
  row('claude-opus-4', anthropic(15, 75), /^claude-opus-4(-0)?(-\d{8})?$/),
  row('claude-sonnet-4-6', premium(SONNET, 200_000, CLAUDE_46_1M_GA)),
  row('claude-sonnet-4-5', premium(SONNET, 200_000)),
  row('claude-sonnet-4', premium(SONNET, 200_000), /^claude-sonnet-4(-0)?(-\d{8})?$/),
  row('claude-haiku-4-5', HAIKU_45),
  row('claude-3-7-sonnet', SONNET),
  row('claude-3-5-sonnet', SONNET),
  row('claude-3-5-haiku', anthropic(0.8, 4)),
  row('claude-3-opus', anthropic(15, 75)),
  row('claude-3-haiku', anthropic(0.25, 1.25)),
  row('gpt-5', GPT_5),
  row('gpt-5-codex', GPT_5),
  row('gpt-5.1', GPT_5),
  row('gpt-5.1-codex', GPT_5),
  row('gpt-5.1-codex-max', GPT_5),
  row('gpt-5-mini', openai(0.25, 2, 0.025)),
  row('gpt-5.1-codex-mini', openai(0.25, 2, 0.025)),
  row('gpt-5-nano', openai(0.05, 0.4, 0.005)),
  row('gpt-5.2', GPT_52),
  row('gpt-5.2-codex', GPT_52),
  row('gpt-5.3-codex', GPT_52),
  row('gpt-5.4', premium(openai(2.5, 15, 0.25), 272_000)),
  row('gpt-5.4-mini', openai(0.75, 4.5, 0.075)),
  row('gpt-5.4-nano', openai(0.2, 1.25, 0.02)),
  row('gpt-5.5', GPT_55),
  row('codex-mini-latest', openai(1.5, 6, 0.375), /^codex-mini(-latest)?$/),
  row('o3', openai(2, 8, 0.5)),
  row('o4-mini', openai(1.1, 4.4, 0.275)),
  // Families: a model the table does not know is priced as its family's latest model.
  family('claude-opus-*', /^claude-opus/, OPUS_45),
  family('claude-sonnet-*', /^claude-sonnet/, SONNET),
  family('claude-haiku-*', /^claude-haiku/, HAIKU_45),
  family('claude-*', /^claude-/, SONNET),
  family('gpt-5*', /^gpt-5/, GPT_55),
];

/** [pattern, price] of every row in order (the specific ids, then the families). */
export const MODEL_PRICES: ReadonlyArray<readonly [RegExp, TieredPrice]> = PRICE_ROWS.map((r) => [r.pattern, r.price] as const);

/** The price used for a model no row matches (and for no model): Claude Sonnet's. */
export const DEFAULT_PRICE: ModelPrice = SONNET;

/** The model id without Claude Code's `[1m]` window marker (the API bills the model, not the marker). */
export function baseModelId(model: string): string {
  return model.replace(/\[1m\]$/i, '');
}

/** The price of `model` and where it came from; the longest matching override prefix wins over the table. */
export function priceLookup(model: string | undefined, overrides: PriceOverrides = {}): PriceLookup {
  const m = model === undefined ? undefined : baseModelId(model);
  const found = m !== undefined ? PRICE_ROWS.find((r) => r.pattern.test(m)) : undefined;
  const base: PriceLookup = found
    ? { price: found.price, source: found.fallback ? 'family-fallback' : 'table', row: found.name }
    : { price: DEFAULT_PRICE, source: 'family-fallback', row: 'default' };
  const key = Object.keys(overrides)
    .filter((prefix) => model !== undefined && model.startsWith(prefix))
    .sort((a, b) => b.length - a.length)[0];
  if (key === undefined) return base;
  // The user's rates replace the table's; a long-context premium of the table row no longer applies.
  const { longContext: _table, ...rates } = base.price;
  return { price: { ...rates, ...overrides[key] }, source: 'user', row: key };
}

export function priceFor(model: string | undefined, overrides: PriceOverrides = {}): TieredPrice {
  return priceLookup(model, overrides).price;
}

/** The sentence a CLI prints (and a JSON carries) when `model` was priced by a fallback; undefined otherwise. */
export function fallbackPriceWarning(model: string | undefined, lookup: PriceLookup): string | undefined {
  if (lookup.source !== 'family-fallback') return undefined;
  const p = lookup.price;
  const how = lookup.row === 'default' ? 'the default price' : `the ${lookup.row} family's price`;
  return (
    `${model ?? 'unknown model'}: no price in the table; priced as ${how} ($${p.input} input, $${p.output} output per million tokens) ` +
    `(family fallback; set a price override to correct it)`
  );
}

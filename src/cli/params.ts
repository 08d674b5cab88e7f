// `--param k=v` for `splitpoint plan`: each parameter once, by a name the strategy takes, with a plain
// decimal value. JavaScript's Number() would take "0x10", "1e3", " 3" and "Infinity", and an object
// literal would turn `__proto__=1` into a prototype instead of a parameter: neither reaches the engine.
import { StrategyParamError, type StrategyDefinition } from '../core';
import { UsageError } from './args';

/** Digits, an optional minus sign and an optional fraction: "3", "0.25", "-1". */
const PLAIN_DECIMAL = /^-?[0-9]+(?:\.[0-9]+)?$/;

/** The overrides `--param` gives `strategy`, as numbers; every mistake names the parameter. */
export function parseParamOverrides(strategy: StrategyDefinition, pairs: readonly string[]): Map<string, number> {
  const known = strategy.params.map((p) => p.name);
  const given = new Map<string, string>();
  const out = new Map<string, number>();
  for (const kv of pairs) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new UsageError(`--param expects k=v, got "${kv}"`);
    const key = kv.slice(0, eq);
    const raw = kv.slice(eq + 1);
    if (!known.includes(key)) {
      throw new StrategyParamError(strategy.name, key, `is not a parameter of this strategy (it takes: ${known.join(', ') || 'none'})`);
    }
    const earlier = given.get(key);
    if (earlier !== undefined) throw new StrategyParamError(strategy.name, key, `is given more than once ("${earlier}" and "${raw}")`);
    given.set(key, raw);
    if (!PLAIN_DECIMAL.test(raw)) {
      throw new StrategyParamError(strategy.name, key, `must be a number, got "${raw}" (plain decimal digits, like 3 or 0.25)`);
    }
    out.set(key, Number(raw));
  }
  return out;
}

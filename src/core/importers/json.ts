// JSON plumbing shared by the importers: line splitting and parsing with file:line errors, and the
// `fail` callback that turns a shape problem into an ImportError at a location.
import { errorMessage } from '../base/errors';
import { describe, isRecord, type Fail } from '../conversation/messageShape';
import { checkJsonDepth } from './bounds';
import { ImportError } from './types';

export { describe, isRecord as isObject, type Fail };

export type Json = Record<string, unknown>;

export interface JsonLine {
  line: number;
  value: Json;
}

/** Problems found at `line` of `file` (undefined: the whole file) throw an ImportError there. */
export function failAt(file: string, line: number | undefined): Fail {
  return (field, detail) => {
    throw new ImportError(file, line, field, detail);
  };
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export function nonBlankLines(text: string): Array<{ line: number; raw: string }> {
  const out: Array<{ line: number; raw: string }> = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() !== '') out.push({ line: i + 1, raw });
  });
  return out;
}

export function parseJsonLine(raw: string, line: number, file: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw new ImportError(file, line, undefined, `invalid JSON: ${errorMessage(e)}`);
  }
  if (!isRecord(value)) throw new ImportError(file, line, undefined, `expected a JSON object, got ${describe(value)}`);
  checkJsonDepth(value, raw, '', failAt(file, line));
  return value;
}

export function parseJsonLines(text: string, file: string): JsonLine[] {
  return nonBlankLines(text).map(({ line, raw }) => ({ line, value: parseJsonLine(raw, line, file) }));
}

export function parsesAsObject(raw: string): boolean {
  try {
    return isRecord(JSON.parse(raw));
  } catch {
    return false;
  }
}

export function jsonSyntaxError(file: string, text: string, error: Error): ImportError {
  let line: number | undefined;
  const explicit = /\(line (\d+) column \d+\)/.exec(error.message);
  const position = /at position (\d+)/.exec(error.message);
  if (explicit) line = Number(explicit[1]);
  else if (position) line = text.slice(0, Number(position[1])).split('\n').length;
  return new ImportError(file, line, undefined, `invalid JSON: ${error.message}`);
}

export function timestampMs(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

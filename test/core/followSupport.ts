// Helpers of the follower tests: write a session file in pieces, poll after each, and compare with the
// import of a file that holds exactly the complete lines written so far.
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { importSessionFile, type ImportResult } from '../../src/core';
import type { FollowUpdate, SessionFollower } from '../../src/core/importers/follow';

/** What the follower must equal: the fields the contract names, and the warnings (in order). */
export function comparable(r: ImportResult): unknown {
  return {
    format: r.format,
    messages: r.messages,
    compactions: r.compactions,
    model: r.model,
    contextWindow: r.contextWindow,
    rolledBackPrompts: r.rolledBackPrompts,
    header: r.header,
    warnings: r.warnings,
  };
}

/** The import of `text`'s complete lines (what follows the last newline is left out), or its error message. */
export async function expectedFor(text: string, path: string): Promise<unknown> {
  const end = text.lastIndexOf('\n') + 1;
  writeFileSync(path, text.slice(0, end));
  try {
    return comparable(await importSessionFile(path));
  } catch (e) {
    return { error: (e as Error).message };
  }
}

export async function polled(follower: SessionFollower): Promise<{ update?: FollowUpdate; compared: unknown }> {
  try {
    const update = await follower.poll();
    return { update, compared: comparable(update.result) };
  } catch (e) {
    return { compared: { error: (e as Error).message } };
  }
}

/**
 * Appends `text` to `path` in pieces (cut at `cuts`, offsets into text, increasing), polling after each
 * and checking the result against the import of the complete lines so far, written to `check` (its name
 * in warnings and errors is replaced by `path`).
 */
export async function followInPieces(
  follower: SessionFollower,
  path: string,
  check: string,
  text: string,
  cuts: readonly number[],
  label: string,
): Promise<FollowUpdate[]> {
  const updates: FollowUpdate[] = [];
  writeFileSync(path, '');
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    if (cut <= from) continue;
    appendFileSync(path, text.slice(from, cut));
    from = cut;
    const got = await polled(follower);
    const want = await expectedFor(text.slice(0, cut), check);
    assert.deepEqual(renamed(got.compared, '', ''), renamed(want, check, path), `${label}: after ${cut} of ${text.length} characters`);
    if (got.update) {
      assert.equal(
        got.update.bytes,
        Buffer.byteLength(text.slice(0, text.slice(0, cut).lastIndexOf('\n') + 1)),
        `${label}: bytes at ${cut}`,
      );
      updates.push(got.update);
    }
  }
  return updates;
}

/** `value` with every mention of the file `from` replaced by `to` (the expected import read another path). */
export function renamed(value: unknown, from: string, to: string): unknown {
  const json = JSON.stringify(value ?? null);
  return JSON.parse(from === '' ? json : json.split(JSON.stringify(from).slice(1, -1)).join(JSON.stringify(to).slice(1, -1)));
}

/** Offsets that cut `text` into pieces: some whole lines, some several lines, some in the middle of a line. */
export function cutsFor(text: string, pieces: number, seed = 1): number[] {
  let s = seed;
  const random = (): number => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
  const newlines: number[] = [];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) newlines.push(i + 1);
  const cuts = new Set<number>();
  const step = Math.max(1, Math.floor(newlines.length / pieces));
  for (let i = 0; i < newlines.length; i += Math.max(1, Math.round(step * (0.5 + random())))) {
    const at = newlines[i];
    // One piece in four ends inside the next line.
    let cut = random() < 0.25 && i + 1 < newlines.length ? at + Math.floor((newlines[i + 1] - at) * random()) : at;
    // Never between the two halves of a surrogate pair (the pieces are written as UTF-8).
    if (cut < text.length && text.charCodeAt(cut - 1) >= 0xd800 && text.charCodeAt(cut - 1) < 0xdc00) cut++;
    cuts.add(cut);
  }
  return [...cuts].sort((a, b) => a - b);
}

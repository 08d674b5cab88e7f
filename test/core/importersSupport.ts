// Shared by the importer tests: the fixtures, a compact picture of a message, and assertions on imports.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blocksOf, toApiMessages, type ContentBlock, type Message } from '../../src/core/conversation/conversation';
import { requestViolations } from '../../src/core/conversation/invariants';
import { importSession, ImportError, type ImportResult } from '../../src/core/importers';

export const FIXTURES = join(import.meta.dirname ?? __dirname, '..', 'fixtures');

export function fixture(kind: 'sessions' | 'malformed', name: string): string {
  return readFileSync(join(FIXTURES, kind, name), 'utf8');
}

export function load(name: string): ImportResult {
  return importSession(fixture('sessions', name), name);
}

/** A compact picture of a message: role, then its block types (tool ids after a colon). */
export function shape(m: Message): string {
  const blocks =
    typeof m.content === 'string'
      ? ['string']
      : m.content.map((b) =>
          b.type === 'tool_use' ? `tool_use:${b.id}` : b.type === 'tool_result' ? `tool_result:${b.tool_use_id}` : b.type,
        );
  return `${m.role} ${blocks.join(',')}`;
}

export function assertValid(messages: Message[]): void {
  assert.deepEqual(requestViolations(toApiMessages(messages)), []);
}

export function importError(text: string, name: string): ImportError {
  try {
    importSession(text, name);
  } catch (e) {
    assert.ok(e instanceof ImportError, `expected an ImportError, got ${String(e)}`);
    return e;
  }
  assert.fail(`${name}: expected importSession to throw`);
}

export function malformed(name: string): ImportError {
  return importError(fixture('malformed', name), name);
}

export function toolUseBlock(m: Message, id: string): ContentBlock & { input?: unknown } {
  const block = blocksOf(m).find((b) => b.type === 'tool_use' && b.id === id);
  assert.ok(block, `no tool_use ${id} in ${m.id}`);
  return block;
}

/** One Claude Code transcript line with the fields a line needs, then `fields`. */
export function claudeLine(fields: Record<string, unknown>): string {
  return JSON.stringify({ isSidechain: false, sessionId: 's', timestamp: '2025-11-03T09:00:00.000Z', ...fields });
}

// The engine's emulation of clear_tool_uses_20250919 (src/core/pipeline/serverContext.ts) against the loopback
// server's independent implementation of the same documented rules (test/loopback/contextManagement.ts),
// on generated conversations: with the trigger passed and no clear_at_least, both clear exactly the same
// tool uses (all but the `keep` most recent, excluded tools never), and the request stays valid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { toApiMessages, type Message } from '../../src/core/conversation/conversation';
import { requestViolations } from '../../src/core/conversation/invariants';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { CLEARED_TOOL_RESULT_TEXT, clearToolUsesEdit, emulateClearToolUses } from '../../src/core/pipeline/serverContext';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { CLEARED_PLACEHOLDER, CONTEXT_MANAGEMENT_BETA, manageContext } from '../loopback/contextManagement';
import type { MessagesRequestBody, WireBlock } from '../loopback/anthropic-server';
import { conversationArb } from './arbitraries';

const RUNS = Number(process.env.SPLITPOINT_SERVER_PROPERTY_RUNS ?? 300);

/** tool_use ids whose results are cleared in a list of messages, by the placeholder each side uses. */
function clearedIds(messages: ReadonlyArray<{ content: unknown }>, placeholder: string): string[] {
  const ids: string[] = [];
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as WireBlock[]) if (b.type === 'tool_result' && b.content === placeholder) ids.push(String(b.tool_use_id));
  }
  return ids;
}

test(`the emulation clears the same tool uses as the loopback server (${RUNS} conversations)`, () => {
  let clearedSome = 0;
  fc.assert(
    fc.property(conversationArb, fc.integer({ min: 0, max: 5 }), fc.boolean(), (messages: Message[], keep, exclude) => {
      const names = [
        ...new Set(
          messages.flatMap((m) =>
            (Array.isArray(m.content) ? m.content : [])
              .filter((b) => b.type === 'tool_use')
              .map((b) => String((b as { name: string }).name)),
          ),
        ),
      ];
      const excludeTools = exclude && names.length > 0 ? [names[0]!] : [];
      const params = { triggerTokens: 1, keepToolUses: keep, clearAtLeast: 0, clearToolInputs: 0 };
      const ctx = { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()) };
      const edit = clearToolUsesEdit(params, { excludeTools });
      const local = emulateClearToolUses(messages, edit, ctx);
      const body: MessagesRequestBody = {
        model: 'm',
        max_tokens: 10,
        messages: toApiMessages(messages) as MessagesRequestBody['messages'],
        context_management: { edits: [edit] },
      };
      const server = manageContext(body, { 'anthropic-beta': CONTEXT_MANAGEMENT_BETA }, (b) => JSON.stringify(b.messages ?? []).length);
      assert.equal(server.error, undefined);
      const expected = clearedIds(server.body.messages ?? [], CLEARED_PLACEHOLDER).sort();
      assert.deepEqual(clearedIds(local.output, CLEARED_TOOL_RESULT_TEXT).sort(), expected);
      assert.deepEqual(local.cleared.map((c) => c.toolUseId).sort(), expected);
      assert.equal(server.response?.applied_edits[0]?.cleared_tool_uses ?? 0, expected.length);
      assert.deepEqual(requestViolations(toApiMessages(local.output)), []);
      if (expected.length > 0) clearedSome++;
    }),
    { numRuns: RUNS },
  );
  assert.ok(clearedSome > RUNS / 4, `only ${clearedSome} of ${RUNS} conversations had anything cleared`);
});

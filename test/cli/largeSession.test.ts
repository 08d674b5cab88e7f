// A session of 500,000 messages through the built CLI: `import`, `plan` and `replay` finish (exit 0) instead
// of overflowing the stack. No list of unbounded length is spread into call arguments (`push(...list)`
// overflows at about 130,000 items).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBuilt, scratchDir } from './builtCli';

const MESSAGES = 500_000;

/** Anthropic Messages JSON: MESSAGES messages, prompts and answers alternating. */
function longConversation(): string {
  const parts: string[] = [];
  for (let i = 0; i < MESSAGES; i++) {
    parts.push(i % 2 === 0 ? `{"role":"user","content":"q${i}"}` : `{"role":"assistant","content":[{"type":"text","text":"a${i}"}]}`);
  }
  return `[${parts.join(',')}]`;
}

function assertFinished(r: { code: number; stderr: string }, label: string): void {
  assert.doesNotMatch(r.stderr, /RangeError|Maximum call stack|internal error/, `${label}: ${r.stderr.slice(0, 400)}`);
  assert.equal(r.code, 0, `${label}: ${r.stderr.slice(0, 400)}`);
}

test('500,000 messages: import, plan and replay exit 0 without a stack overflow', { timeout: 600_000 }, async () => {
  const file = join(await scratchDir(), 'long-conversation.json');
  writeFileSync(file, longConversation());
  const imported = await runBuilt('import', file);
  assertFinished(imported, 'import');
  assert.equal(imported.stdout.trimEnd().split('\n').length, 1 + MESSAGES, 'a header and every message');
  assertFinished(await runBuilt('plan', file, '--strategy', 'sliding-window'), 'plan');
  assertFinished(await runBuilt('replay', file), 'replay');
});

// The main suite's step on a recorded session: a real Claude Code session opened in the inspector as
// recorded, with its compaction, and time travel to the context that compaction replaced.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importSession } from '../../../src/core/importers';
import { ROOT } from '../codeServer';
import { runCommand, waitFor } from '../workbench';
import { inspector, UI_TIMEOUT, type VscodeSession } from './session';

/** A real Claude Code session with one compaction by Claude Code (test/fixtures/real-sessions/). */
const REAL_SESSION = join(ROOT, 'test', 'fixtures', 'real-sessions', 'claude-code-cipher-box-a.jsonl');

/**
 * Step 10 (inspect-recorded-claude-code-session): the session file picked with the command is shown as
 * recorded, and time travel goes back before its compaction.
 */
export async function inspectRecordedClaudeCodeSession(s: VscodeSession): Promise<void> {
  // A real Claude Code session (test/fixtures/real-sessions/), opened through the command and VS Code's own file
  // picker (code-server's simple dialog: a path box), is shown as recorded: Claude Code's compaction
  // with the context it replaced archived above, the current context (its summary and what followed).
  const file = REAL_SESSION;
  const recorded = importSession(readFileSync(file, 'utf8'), file);
  assert.equal(recorded.compactions.length, 1, 'the fixture holds one compaction by Claude Code');
  await runCommand(s.page, 'Splitpoint: Inspect Session File…');
  const picker = s.page.locator('.quick-input-widget .quick-input-box input');
  await picker.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  // The simple dialog fills in its start folder a moment after it shows, overwriting a path typed
  // before that (seen in runs): type the file until it stays there for a poll interval.
  await waitFor(
    'the file path to stay in the picker',
    async () => {
      if ((await picker.inputValue()) === file) return true;
      await picker.fill(file);
      return false;
    },
    UI_TIMEOUT,
    500,
  );
  await picker.press('Enter');
  const frame = await inspector(s.page);
  await frame.locator('[data-field="readonly-source"]', { hasText: 'claude-code-cipher-box-a.jsonl' }).waitFor({ timeout: UI_TIMEOUT });
  const marker = frame.locator('[data-marker="recorded-compaction"]');
  await marker.waitFor({ timeout: UI_TIMEOUT });
  const text = await marker.innerText();
  assert.match(text, /Compaction 1 · Claude Code · auto/);
  assert.ok(text.includes(recorded.compactions[0].preTokens!.toLocaleString('en-US')), `recorded pre-tokens in "${text}"`);
  const timeline = frame.locator('.timeline[role="listbox"]');
  await waitFor(
    'the current context',
    async () => Number(await timeline.getAttribute('data-count')) === recorded.messages.length,
    UI_TIMEOUT,
  );
  assert.equal(await frame.locator('[data-archive-toggle="1"]').getAttribute('aria-expanded'), 'false', 'archived history collapsed');
  await frame.locator('[data-stat="recorded"]').waitFor({ timeout: UI_TIMEOUT });
  // Against the recorded model's window (200K for Claude), not this workspace's 16K setting.
  assert.match(await frame.locator('[data-stat="used"]').innerText(), /^o200k estimate: [\d,]+ of 200,000 tokens/);
  assert.equal(await frame.locator('[data-field="window-source"]').innerText(), "200,000 window (the recorded model's window)");
  // Time travel to just before Claude Code compacted: the rows are the context it replaced.
  await frame.locator('#sp-context').selectOption('1');
  await frame.locator('[data-field="time-travel"]', { hasText: 'before compaction 1 (Claude Code, auto' }).waitFor({ timeout: UI_TIMEOUT });
  const before = recorded.compactions[0].before.length;
  await waitFor('the context before the compaction', async () => Number(await timeline.getAttribute('data-count')) === before, UI_TIMEOUT);
  await s.run.screenshot('10-time-travel');
  await frame.locator('[data-action="time-travel-back"]').click();
  await waitFor(
    'the current context again',
    async () => Number(await timeline.getAttribute('data-count')) === recorded.messages.length,
    UI_TIMEOUT,
  );
  await frame.locator('[data-archive-toggle="1"]').click();
  await frame.locator('.history-row').first().waitFor({ timeout: UI_TIMEOUT });
}

// The main suite's live-session step (issue 24): a fake home (code-server's HOME is the run's base
// folder) holds a Claude Code project folder for the workspace and a Codex rollout whose cwd is the
// workspace, each the first lines of a real session (test/fixtures/real-sessions/). The "Agent
// Sessions" view lists both; opening the Claude Code one follows it in the inspector; lines appended
// to the file (one split mid-line) update the strip's context figure and the status bar item to the
// recorded usage of the last call written; "Continue in Splitpoint" opens a chat whose first request
// carries that session's context.
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeProjectFolderNames, importSession, liveStatus, textOf } from '../../../src/core';
import { ROOT } from '../codeServer';
import { runCommand, waitFor } from '../workbench';
import { chat, idle, inspector, send, UI_TIMEOUT, type VscodeSession } from './session';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'real-sessions');
const CLAUDE_FIXTURE = join(FIXTURES, 'claude-code-cipher-box-a.jsonl');
const CODEX_FIXTURE = join(FIXTURES, 'codex-agentv-a.jsonl');
/** Lines written before code-server starts (a few recorded calls each), and the Claude Code lines appended during the step. */
const CLAUDE_FIRST = 30;
const CLAUDE_APPENDED = 30;
const CODEX_FIRST = 25;

/** The fake agents' files in the run's home, and the Claude Code lines still to be "written by the agent". */
export interface AgentHomes {
  claudeFile: string;
  codexFile: string;
  /** The Claude Code fixture's lines (without their newlines). */
  claudeLines: string[];
}

function lines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
}

/**
 * Before code-server starts: `<home>/.claude/projects/<workspace mangled>/<session>.jsonl` and
 * `<home>/.codex/sessions/2026/06/22/rollout-….jsonl` (its session_meta's cwd set to the workspace).
 */
export function prepareAgentHomes(home: string, workspace: string): AgentHomes {
  const claudeLines = lines(CLAUDE_FIXTURE);
  const claudeDir = join(home, '.claude', 'projects', claudeProjectFolderNames(workspace)[0]);
  mkdirSync(claudeDir, { recursive: true });
  const claudeFile = join(claudeDir, '2095544c-fa50-4027-b664-c37e578957ce.jsonl');
  writeFileSync(claudeFile, `${claudeLines.slice(0, CLAUDE_FIRST).join('\n')}\n`);

  const codexLines = lines(CODEX_FIXTURE).slice(0, CODEX_FIRST);
  const meta = JSON.parse(codexLines[0]) as { type: string; payload: { cwd: string } };
  assert.equal(meta.type, 'session_meta', 'the Codex fixture starts with its session metadata');
  meta.payload.cwd = workspace;
  codexLines[0] = JSON.stringify(meta);
  const codexDir = join(home, '.codex', 'sessions', '2026', '06', '22');
  mkdirSync(codexDir, { recursive: true });
  const codexFile = join(codexDir, 'rollout-2026-06-22T00-27-40-019eecb9-cc3a-73c2-814a-dd4f8ced7545.jsonl');
  writeFileSync(codexFile, `${codexLines.join('\n')}\n`);
  return { claudeFile, codexFile, claudeLines };
}

/** The context tokens the strip must show for the Claude Code file as it is now (the recorded usage of its last call). */
function expectedContext(file: string): number {
  const status = liveStatus(importSession(readFileSync(file, 'utf8'), file), file);
  assert.ok(status.contextTokens !== null, 'the written lines hold a recorded call');
  return status.contextTokens;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** Step 18 (live-session): the view lists both sessions, a row follows its file, appends show, Continue in Splitpoint. */
export async function liveSession(s: VscodeSession, homes: AgentHomes): Promise<void> {
  await runCommand(s.page, 'Focus on Agent Sessions View');
  const pane = s.page.locator('.pane', { has: s.page.locator('.pane-header', { hasText: 'Agent Sessions' }) });
  const rows = pane.locator('.monaco-list-row');
  const claudeRow = rows.filter({ hasText: 'Claude Code' });
  const codexRow = rows.filter({ hasText: 'Codex' });
  await claudeRow.first().waitFor({ timeout: UI_TIMEOUT });
  await codexRow.first().waitFor({ timeout: UI_TIMEOUT });
  assert.equal(await claudeRow.count(), 1, 'the Claude Code session of this workspace');
  assert.equal(await codexRow.count(), 1, 'the Codex session whose cwd is this workspace');
  const own = await rows.filter({ hasText: 'Splitpoint' }).count();
  assert.equal(await rows.count(), 2 + own, "and Splitpoint's own chats, nothing else");
  await s.run.screenshot('18-agent-sessions');

  // Opening the row follows the file in the inspector: the strip shows the recorded context now.
  await claudeRow.first().click();
  const frame = await inspector(s.page);
  await frame.locator('[data-field="live-state"]', { hasText: 'Following live' }).waitFor({ timeout: UI_TIMEOUT });
  const context = frame.locator('[data-field="live-context"]');
  const before = expectedContext(homes.claudeFile);
  await context.locator('strong', { hasText: fmt(before) }).waitFor({ timeout: UI_TIMEOUT });
  const status = s.page.locator('.statusbar-item', { hasText: 'Claude Code' });
  await status.first().waitFor({ timeout: UI_TIMEOUT });

  // The agent writes on: one line in two halves (the first half waits for its newline), then the rest.
  const next = homes.claudeLines.slice(CLAUDE_FIRST, CLAUDE_FIRST + CLAUDE_APPENDED);
  const half = Math.floor(next[0].length / 2);
  appendFileSync(homes.claudeFile, next[0].slice(0, half));
  await new Promise((r) => setTimeout(r, 400));
  appendFileSync(homes.claudeFile, `${next[0].slice(half)}\n`);
  for (const line of next.slice(1)) appendFileSync(homes.claudeFile, `${line}\n`);
  const after = expectedContext(homes.claudeFile);
  assert.notEqual(after, before, 'the appended lines hold a later call');
  await context.locator('strong', { hasText: fmt(after) }).waitFor({ timeout: UI_TIMEOUT });
  const window = Number((await context.innerText()).match(/of ([\d,]+)/)?.[1]?.replace(/,/g, '') ?? NaN);
  const pct = Math.round((100 * after) / window);
  await waitFor(`the status bar at ${pct}%`, async () => (await status.first().innerText()).includes(`${pct}%`), UI_TIMEOUT);
  await s.run.screenshot('18-followed-after-append');

  // Continue in Splitpoint: a chat whose first request carries the session's context.
  const requestsBefore = s.loopback.messageRequests.length;
  await frame.locator('[data-action="continue-in-splitpoint"]').click();
  const chatFrame = await chat(s.page);
  const prompt = 'Go on from where Claude Code stopped.';
  await send(chatFrame, prompt);
  await idle(chatFrame);
  const first = s.loopback.messageRequests[requestsBefore];
  assert.ok(first, 'the continued chat sent a request');
  const body = JSON.stringify(first.body.messages);
  assert.ok(body.includes(prompt), 'the new prompt');
  // Words of the session's last prompt and of its last answer reach the model (the request carries the imported context).
  const imported = importSession(readFileSync(homes.claudeFile, 'utf8'), homes.claudeFile);
  for (const role of ['user', 'assistant'] as const) {
    const text = imported.messages
      .filter((m) => m.role === role)
      .flatMap((m) =>
        typeof m.content === 'string' ? [m.content] : m.content.filter((b) => b.type === 'text').map((b) => textOf({ content: [b] })),
      )
      .map((t) => t.trim())
      .filter((t) => t.length >= 40)
      .at(-1);
    assert.ok(text, `the imported session has a ${role} text`);
    const words = JSON.stringify(text.slice(0, 40)).slice(1, -1);
    assert.ok(body.includes(words), `the first request carries the ${role}'s "${text.slice(0, 40)}"`);
  }
}

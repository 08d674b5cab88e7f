// The main suite's steps about the API key and where it goes: set from the command, sent to the
// user's base URL only once the user allows it; the base URL a workspace's settings name gets nothing.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { answerInputBox, notification, runCommand } from '../workbench';
import { chat, UI_TIMEOUT, type VscodeSession } from './session';

/** Step 2 (api-key): the key is set with the command and sent to the user's (non-Anthropic) base URL only after the consent dialog. */
export async function apiKeyAllowedForUserBaseUrl(s: VscodeSession): Promise<void> {
  await runCommand(s.page, 'Splitpoint: Set API Key');
  await answerInputBox(s.page, 'Splitpoint: Anthropic API key', s.apiKey);
  // The base URL (the loopback, from user settings) is not Anthropic's: the key goes there only
  // after the user allows it, asked once. The dialog names the user's URL, not the workspace's.
  const dialog = s.page.locator('.monaco-dialog-box').filter({ hasText: `Send your Anthropic API key to ${s.loopback.baseURL}` });
  await dialog.waitFor({ timeout: UI_TIMEOUT });
  assert.equal(s.loopback.requests.length, 0, 'nothing is sent before the answer');
  await s.run.screenshot('2-base-url-consent');
  await dialog.getByRole('button', { name: 'Allow' }).click();
  await dialog.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
  await notification(s.page, 'API key saved').first().waitFor({ timeout: UI_TIMEOUT });
  const frame = await chat(s.page);
  await frame.locator('section.empty.welcome').waitFor({ timeout: UI_TIMEOUT });
  assert.equal(await frame.locator('section.empty.api-key').count(), 0);
}

/** Step 11 (workspace-base-url-ignored): after the whole conversation, the base URL and transcript folder from the workspace's settings got nothing. */
export async function workspaceBaseUrlIgnored(s: VscodeSession): Promise<void> {
  // The whole conversation (prompts, tool calls, summaries, count_tokens, a reload) went to the
  // user's base URL; the one in the workspace's .vscode/settings.json got nothing, so no key.
  assert.ok(s.loopback.messageRequests.length >= 5, 'the user base URL served the conversation');
  assert.equal(s.hostile.requests.length, 0, 'no request reached the workspace base URL');
  // Transcripts went where the user's settings put them (the default), not to the workspace's folder.
  assert.equal(existsSync(join(s.base, 'elsewhere')), false, 'no transcript in the workspace-chosen folder');
  // Asked once, before the first request only (remembered across the reload).
  assert.equal(await s.page.locator('.monaco-dialog-box').count(), 0);
}

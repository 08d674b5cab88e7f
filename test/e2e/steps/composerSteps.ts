// The composer suite's steps: a file @-mentioned from the fuzzy picker (typed `@`, picked with the
// keyboard) goes to the API with its content; the model picker (the model in the chat header opens a
// QuickPick listing the loopback server's GET /v1/models) switches the model for the next request, in
// the same session. The models and answers of its scripted model are here, for the suite's responder.
import assert from 'node:assert/strict';
import type { ValidRequest } from '../../loopback/anthropic-server';
import { DEFAULT_LOOPBACK_MODELS } from '../../loopback/models';
import { FILE_BEFORE, WORKSPACE_FILE } from '../script';
import { waitFor } from '../workbench';
import { CHAT_MARKER, chat, UI_TIMEOUT, type ComposerSession } from './session';

/** The model the user's settings start with. */
export const START_MODEL = 'claude-sonnet-4-5';
/** The model step 3 picks (one the loopback's GET /v1/models lists). */
export const PICKED = DEFAULT_LOOPBACK_MODELS.find((m) => m.id.startsWith('claude-haiku'))!.id;
/** The scripted model's answer to a request for any model but PICKED. */
export const ANSWER_MENTION = 'greeting.ts exports one constant: greeting.';
/** The scripted model's answer to a request for PICKED. */
export const ANSWER_MODEL = 'Answered by the model you picked.';

/** The text of the last user message of a request (string content or its text blocks). */
function lastUserTexts(r: ValidRequest): string[] {
  const messages = r.body.messages as Array<{ role: string; content: unknown }>;
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last) return [];
  if (typeof last.content === 'string') return [last.content];
  return (last.content as Array<{ type: string; text?: string }>).filter((b) => b.type === 'text').map((b) => b.text ?? '');
}

/** Step 2 (mention-a-file): `@greet` opens the picker (.gitignore honoured); Enter picks the file as a chip; the prompt goes with the file's content. */
export async function mentionedFileSentWithPrompt(s: ComposerSession): Promise<void> {
  const frame = await chat(s.page);
  const box = frame.locator(CHAT_MARKER);
  await box.click();
  await box.pressSequentially('What does @greet');
  const picker = frame.getByRole('listbox', { name: 'Workspace files' });
  await picker.getByRole('option', { name: WORKSPACE_FILE, exact: true }).waitFor({ timeout: UI_TIMEOUT });
  const options = await picker.getByRole('option').allTextContents();
  assert.ok(!options.includes('ignored-greeting.ts'), `.gitignore is honoured: ${options.join(', ')}`);
  assert.equal(await picker.getByRole('option', { selected: true }).textContent(), WORKSPACE_FILE);
  await box.press('Enter');
  await frame.locator('.composer .mention-chip').filter({ hasText: WORKSPACE_FILE }).waitFor({ timeout: UI_TIMEOUT });
  await box.pressSequentially('export?');
  assert.equal(await box.inputValue(), `What does @${WORKSPACE_FILE} export?`);
  await s.run.screenshot('2a-chip');
  await box.press('Enter');
  await frame.locator('article.item.assistant').filter({ hasText: ANSWER_MENTION }).waitFor({ timeout: UI_TIMEOUT });
  const request = s.answered.at(-1)!;
  const texts = lastUserTexts(request);
  assert.equal(texts[0], `What does @${WORKSPACE_FILE} export?`);
  assert.equal(texts[1], `<file path="${WORKSPACE_FILE}">\n${FILE_BEFORE}</file>`, 'the file content went with the prompt');
  assert.equal(request.body.model, START_MODEL);
  await frame.locator('article.item.user .mention-chip').filter({ hasText: WORKSPACE_FILE }).waitFor({ timeout: UI_TIMEOUT });
}

/** Step 3 (pick-a-model): the header's model opens the QuickPick of the listed models; the picked one answers the next request, in the same session. */
export async function pickedModelAnswersNext(s: ComposerSession): Promise<void> {
  const frame = await chat(s.page);
  const header = frame.locator('button.model-button');
  assert.equal((await header.textContent())?.trim(), START_MODEL);
  await header.click();
  const widget = s.page.locator('.quick-input-widget');
  await widget.locator('.quick-input-title').filter({ hasText: 'Splitpoint: Choose Model' }).waitFor({ timeout: UI_TIMEOUT });
  const row = widget.locator('.quick-input-list .monaco-list-row').filter({ hasText: PICKED });
  await row.waitFor({ timeout: UI_TIMEOUT });
  assert.doesNotMatch((await widget.locator('.quick-input-title').textContent()) ?? '', /offline/, 'listed by the models endpoint');
  assert.ok(
    s.loopback.requests.some((r) => r.path === '/v1/models' && r.status === 200),
    'GET /v1/models was asked',
  );
  assert.match((await row.textContent()) ?? '', /200,000 tokens context window/);
  const sessionBefore = await frame.locator('.session-title .title-text').textContent();
  await widget.locator('.quick-input-box input').fill(PICKED);
  await widget.locator('.quick-input-box input').press('Enter');
  await widget.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
  await waitFor('the header to show the picked model', async () => (await header.textContent())?.trim() === PICKED, UI_TIMEOUT);
  assert.equal(await frame.locator('.session-title .title-text').textContent(), sessionBefore, 'the same session');

  const box = frame.locator(CHAT_MARKER);
  await box.click();
  await box.pressSequentially('And now?');
  await box.press('Enter');
  await frame.locator('article.item.assistant').filter({ hasText: ANSWER_MODEL }).waitFor({ timeout: UI_TIMEOUT });
  const request = s.answered.at(-1)!;
  assert.equal(request.body.model, PICKED, 'the next request uses the picked model');
  const messages = request.body.messages as Array<{ role: string }>;
  assert.ok(messages.length >= 3, 'the conversation continued (the earlier turn is in the request)');
  assert.equal(await frame.locator('article.item.assistant').filter({ hasText: ANSWER_MENTION }).count(), 1, 'the chat kept its history');
}

// What the steps of one end-to-end suite share: the session a suite builds in its `before` (the
// workbench page, the run that screenshots, the loopback Anthropic API, the workspace) and the
// helpers that find the chat and inspector webviews and drive the chat. The suites call the steps
// in order with their session; each step starts where the previous one left the window.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import type { LoopbackAnthropic, ValidRequest } from '../../loopback/anthropic-server';
import type { E2eRun } from '../run';
import { WORKSPACE_FILE, type ScriptLog } from '../script';
import { sendPrompt, webviewFrame } from '../workbench';

/** Bounded waits: generous for a loaded CI machine, short enough to fail fast on a real hang. */
export const UI_TIMEOUT = 30_000;
export const CHAT_MARKER = 'textarea.composer-input';
export const INSPECTOR_MARKER = 'section.panel.strategies';

/** What every suite's steps get, once its `before` has started code-server and opened the workbench. */
export interface E2eSession {
  readonly page: Page;
  /** Screenshots go through it (test-artifacts/<prefix>-<name>.png). */
  readonly run: E2eRun;
  /** The user's base URL: the scripted model every request of the conversation goes to. */
  readonly loopback: LoopbackAnthropic;
  readonly workspace: string;
}

/** The main suite (vscode.e2e.test.ts): one conversation through every feature. */
export interface VscodeSession extends E2eSession {
  readonly apiKey: string;
  /** The base URL a cloned repository's .vscode/settings.json sets: it must never receive a request. */
  readonly hostile: LoopbackAnthropic;
  /** The run's home folder (the workspace and the user data are inside it). */
  readonly base: string;
  /** What the scripted model has been asked (summaries). */
  readonly script: ScriptLog;
}

/** The MCP suite (mcp.e2e.test.ts): a real MCP server over stdio, started from the workspace's mcp.json. */
export interface McpSession extends E2eSession {
  readonly apiKey: string;
  readonly userDataDir: string;
  /** A marker on the MCP server's command line, so the test finds (and kills) exactly its process. */
  readonly marker: string;
}

/** The review suite (reviewCheckpoints.e2e.test.ts): an edit reviewed in the diff editor, then files restored to a checkpoint. */
export interface ReviewSession extends E2eSession {
  readonly apiKey: string;
}

/** The composer suite (composer.e2e.test.ts): an @-mentioned file and the model picker. */
export interface ComposerSession extends E2eSession {
  readonly apiKey: string;
  /** Every request the scripted model answered, in order (its responder appends to it). */
  readonly answered: readonly ValidRequest[];
}

/** The chat view's webview (the sidebar). */
export function chat(page: Page): Promise<FrameLocator> {
  return webviewFrame(page, CHAT_MARKER, UI_TIMEOUT);
}

/** The inspector's webview (an editor tab). */
export function inspector(page: Page): Promise<FrameLocator> {
  return webviewFrame(page, INSPECTOR_MARKER, UI_TIMEOUT);
}

/** Sends `prompt` from the chat's composer and waits until the chat shows it. */
export function send(frame: FrameLocator, prompt: string): Promise<void> {
  return sendPrompt(frame, CHAT_MARKER, prompt, UI_TIMEOUT);
}

/** Waits until the agent is idle (the composer shows Send again, not Stop). */
export async function idle(frame: FrameLocator, timeout = UI_TIMEOUT): Promise<void> {
  await frame.locator('.app:not(.is-busy)').waitFor({ timeout });
}

/** The text of the workspace file the scripted model edits (script.ts's WORKSPACE_FILE), as it is on disk now. */
export function workspaceFileText(s: E2eSession): string {
  return readFileSync(join(s.workspace, WORKSPACE_FILE), 'utf8');
}

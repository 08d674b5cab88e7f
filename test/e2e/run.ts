// What every end-to-end file does around its steps in code-server: one workbench page (its browser
// console collected), steps of one session that are skipped once a step failed and screenshot either
// way, the API key set from the sidebar, and at the end the run's folders removed, or on failure kept
// with the logs in test-artifacts/.
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { ROOT, type CodeServer } from './codeServer';
import { answerInputBox, launchBrowser, runCommand } from './workbench';

export const ARTIFACTS = join(ROOT, 'test-artifacts');

export class E2eRun {
  /** A step failed: later steps are skipped, and finish() keeps the logs. */
  failed = false;
  readonly browserLog: string[] = [];

  /**
   * `prefix` names the artifacts (`<prefix>-<step>.png`, `<prefix>-code-server.log`…); `page` is the
   * workbench page once opened; `onStepDone` hears each step's duration.
   */
  constructor(
    private readonly prefix: string,
    private readonly stepTimeoutMs: number,
    private readonly page: () => Page | undefined,
    private readonly onStepDone?: (step: string, ms: number) => void,
  ) {}

  async screenshot(name: string): Promise<void> {
    mkdirSync(ARTIFACTS, { recursive: true });
    await this.page()
      ?.screenshot({ path: join(ARTIFACTS, `${this.prefix}-${name}.png`) })
      .catch(() => undefined);
  }

  /** A step of the one session: skipped once an earlier step failed; screenshot either way. */
  step(n: number, name: string, fn: () => Promise<void>): void {
    test(`${n}. ${name.replace(/-/g, ' ')}`, { timeout: this.stepTimeoutMs }, async (t) => {
      if (this.failed) {
        t.skip('an earlier step failed');
        return;
      }
      const started = Date.now();
      try {
        await fn();
        await this.screenshot(`${n}-${name}`);
      } catch (e) {
        this.failed = true;
        await this.screenshot(`${n}-${name}-FAILED`);
        throw e;
      } finally {
        this.onStepDone?.(`${n}-${name}`, Date.now() - started);
        t.diagnostic(`${Date.now() - started} ms`);
      }
    });
  }

  /** A browser on the workbench of `workspace`, its console errors and warnings collected in browserLog. */
  async openWorkbench(server: CodeServer, workspace: string): Promise<{ browser: Browser; page: Page }> {
    const browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') this.browserLog.push(`[${m.type()}] ${m.text()}`);
    });
    page.on('pageerror', (e) => this.browserLog.push(`[pageerror] ${e.message}`));
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    return { browser, page };
  }

  /**
   * Removes the run's folders, or (when `keep`, by default when a step failed) keeps them and writes what
   * is needed to see what went wrong: the server's output, the browser console, VS Code's own logs, and
   * `files` (artifact name -> text).
   */
  finish(o: { base?: string; server?: CodeServer; userDataDir?: string; files?: Record<string, string>; keep?: boolean }): void {
    if (!(o.keep ?? this.failed)) {
      if (o.base) rmSync(o.base, { recursive: true, force: true });
      return;
    }
    mkdirSync(ARTIFACTS, { recursive: true });
    if (o.server) writeFileSync(join(ARTIFACTS, `${this.prefix}-code-server.log`), o.server.output());
    writeFileSync(join(ARTIFACTS, `${this.prefix}-browser-console.log`), this.browserLog.join('\n'));
    const logs = o.userDataDir ? join(o.userDataDir, 'logs') : '';
    if (logs && existsSync(logs)) cpSync(logs, join(ARTIFACTS, `${this.prefix}-vscode-logs`), { recursive: true });
    for (const [name, text] of Object.entries(o.files ?? {})) writeFileSync(join(ARTIFACTS, `${this.prefix}-${name}`), text);
    if (o.base) console.log(`e2e: kept ${o.base} for inspection; logs in ${ARTIFACTS}`);
  }
}

/**
 * Opens the Splitpoint sidebar (asking for a key), sets `apiKey` with the command and allows sending it
 * to `baseURL` in the consent dialog.
 */
export async function setApiKeyFromSidebar(
  page: Page,
  chat: () => Promise<FrameLocator>,
  apiKey: string,
  baseURL: string,
  timeoutMs: number,
): Promise<void> {
  const entry = page.locator('.activitybar a[aria-label="Splitpoint"]').first();
  await entry.waitFor({ timeout: 60_000 });
  await entry.click();
  await (await chat()).locator('section.empty.api-key').waitFor({ timeout: timeoutMs });
  await runCommand(page, 'Splitpoint: Set API Key');
  await answerInputBox(page, 'Splitpoint: Anthropic API key', apiKey);
  const dialog = page.locator('.monaco-dialog-box').filter({ hasText: `Send your Anthropic API key to ${baseURL}` });
  await dialog.waitFor({ timeout: timeoutMs });
  await dialog.getByRole('button', { name: 'Allow' }).click();
  await dialog.waitFor({ state: 'hidden', timeout: timeoutMs });
}

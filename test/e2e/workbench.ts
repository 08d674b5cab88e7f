// Playwright helpers for driving the VS Code workbench that code-server serves: the command palette,
// input boxes, notifications, editor tabs, and webviews (each one two frames deep:
// `iframe.webview` → `iframe#active-frame`).
import type { Browser, FrameLocator, Locator, Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium';

/** Debian's Chromium, started the way every browser test here starts it. */
export function launchBrowser(): Promise<Browser> {
  return launchChromium();
}

/** Polls `fn` until it returns a value other than undefined/false, or throws after `timeoutMs`. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 30_000, intervalMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * The content frame of the webview whose document matches `marker` (a selector only that webview
 * has). Webview iframes carry a per-webview `name`; the locator is pinned to it, so other webviews
 * coming and going do not shift it. Call again after the webview may have been recreated.
 */
export async function webviewFrame(page: Page, marker: string, timeoutMs = 30_000): Promise<FrameLocator> {
  return waitFor(
    `a webview containing ${marker}`,
    async () => {
      const names = await page.locator('iframe.webview').evaluateAll((els) => els.map((e) => (e as HTMLIFrameElement).name));
      for (const name of names) {
        if (!name) continue;
        const frame = page.frameLocator(`iframe.webview[name="${name}"]`).frameLocator('iframe#active-frame');
        if ((await frame.locator(marker).count()) > 0) return frame;
      }
      return undefined;
    },
    timeoutMs,
  );
}

/**
 * Runs a command through the command palette (F1), by its full title, e.g. "Splitpoint: Open Inspector".
 * The palette lists the commands registered when it opens and adds none while open, and a command an
 * extension contributes is registered only with the extension's contributions (after a reload, a
 * moment after the workbench and even the cached activity-bar entries appear). So until the command
 * is listed, the palette is closed and opened again.
 */
export async function runCommand(page: Page, title: string, timeoutMs = 30_000): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('.quick-input-box input');
  const row = widget.locator('.quick-input-list .monaco-list-row').filter({ hasText: title }).first();
  await waitFor(
    `the command "${title}" in the command palette`,
    async () => {
      if (!(await input.isVisible())) {
        // F1 works from anywhere, webviews included (they forward keybindings to the workbench).
        await page.keyboard.press('F1');
        await input.waitFor({ state: 'visible', timeout: 2_000 });
      }
      await input.fill(`>${title}`);
      const listed = await row.waitFor({ state: 'visible', timeout: 2_000 }).then(
        () => true,
        () => false,
      );
      if (!listed) await page.keyboard.press('Escape');
      return listed;
    },
    timeoutMs,
    250,
  );
  await row.click();
}

/** The visible input box (showInputBox) with the given title; types `value` and presses Enter. */
export async function answerInputBox(page: Page, title: string, value: string): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  await widget.locator('.quick-input-title').filter({ hasText: title }).waitFor({ state: 'visible', timeout: 15_000 });
  const input = widget.locator('.quick-input-box input');
  await input.fill(value);
  await input.press('Enter');
  await widget.waitFor({ state: 'hidden', timeout: 15_000 });
}

/** A notification toast whose message contains `text`. */
export function notification(page: Page, text: string | RegExp): Locator {
  return page.locator('.notification-list-item-message').filter({ hasText: text });
}

/** The editor tab whose label matches `label`. */
export function editorTab(page: Page, label: RegExp): Locator {
  return page.locator('.tabs-container .tab').filter({ has: page.locator('.label-name', { hasText: label }) });
}

/**
 * Types `prompt` into the chat's composer (`composer`, a selector inside `frame`), sends it, and waits
 * until the chat shows it. A run may send one prompt more than once, so it waits for one more prompt
 * with that text than there was before (a locator matching the earlier copy too would be ambiguous).
 */
export async function sendPrompt(frame: FrameLocator, composer: string, prompt: string, timeoutMs = 30_000): Promise<void> {
  const sent = frame.locator('article.item.user').filter({ hasText: prompt });
  const before = await sent.count();
  const box = frame.locator(composer);
  await box.fill(prompt);
  await box.press('Enter');
  await sent.nth(before).waitFor({ timeout: timeoutMs });
}

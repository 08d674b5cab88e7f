// Headless-Chromium harness for the webviews. Builds the bundle with esbuild into a temp folder,
// serves pages built by src/extension/webviewHtml.ts (same CSP as in VS Code) on 127.0.0.1, with a fake
// `acquireVsCodeApi` loaded from its own <script nonce> file, and records what each page posts,
// requests, logs and violates.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import type { Browser, BrowserContext, ConsoleMessage, Dialog, Page, Request } from 'playwright-core';
import { assertChromiumInstalled, launchChromium } from '../helpers/chromium';
import { setUp, type Cleanup } from '../helpers/cleanup';
import { startStaticServer, type StaticResponse } from '../helpers/staticServer';
import type { ChatToHost, HostToChat } from '../../src/protocol';
import { buildWebviewHtml, makeNonce } from '../../src/extension/webviewHtml';

const ROOT = resolve(import.meta.dirname ?? __dirname, '../..');

export type Theme = 'dark' | 'light';

/** Paths a page is allowed to request; anything else is a leak. */
export const ALLOWED_PATHS = new Set([
  '/chat.html',
  '/sanitize.html',
  '/chat.js',
  '/sanitize.js',
  '/media/chat.css',
  '/media/shared.css',
  '/test/fake-vscode.js',
  '/test/theme-dark.css',
  '/test/theme-light.css',
  '/favicon.ico',
]);

export interface CspViolation {
  directive: string;
  blockedURI: string;
  sourceFile: string;
  line: number;
  sample: string;
}

export interface Probe {
  xss: unknown;
  acquired: number;
  unexpectedPostMessage: string[];
  opened: string[];
  csp: CspViolation[];
  acquireIsFunction: boolean;
}

export class WebviewPage {
  readonly requests: string[] = [];
  readonly dialogs: string[] = [];
  readonly consoleCsp: string[] = [];
  readonly pageErrors: string[] = [];
  private readonly off: Array<() => void> = [];

  constructor(
    readonly page: Page,
    private readonly origin: string,
  ) {
    const on = <E extends 'request' | 'dialog' | 'console' | 'pageerror'>(event: E, fn: (arg: never) => void) => {
      page.on(event as 'request', fn as () => void);
      this.off.push(() => page.off(event as 'request', fn as () => void));
    };
    on('request', (r: Request) => this.requests.push(r.url()));
    on('dialog', (d: Dialog) => {
      this.dialogs.push(`${d.type()}: ${d.message()}`);
      void d.dismiss().catch(() => undefined);
    });
    on('console', (m: ConsoleMessage) => {
      if (/Content Security Policy/i.test(m.text())) this.consoleCsp.push(m.text());
    });
    on('pageerror', (e: Error) => this.pageErrors.push(String(e)));
  }

  /** Stops recording (the harness reuses the browser tab for the next test). */
  detach(): void {
    for (const f of this.off.splice(0)) f();
  }

  /** Requests to anything but our own bundle, styles and test scripts. */
  unexpectedRequests(): string[] {
    return this.requests.filter((u) => {
      if (!u.startsWith(`${this.origin}/`)) return true;
      return !ALLOWED_PATHS.has(new URL(u).pathname);
    });
  }

  async deliver(...msgs: HostToChat[]): Promise<void> {
    await this.page.evaluate((m) => (window as unknown as TestWindow).__vscodeTest.deliverAll(m), msgs);
  }

  /** Waits until the page has rendered what was delivered (two animation frames). */
  async settle(): Promise<void> {
    await this.page.evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));
  }

  async posted(): Promise<ChatToHost[]> {
    return this.page.evaluate(() => (window as unknown as TestWindow).__vscodeTest.posted);
  }

  /** Posted messages other than the initial 'ready'. */
  async intents(): Promise<ChatToHost[]> {
    return (await this.posted()).filter((m) => m.type !== 'ready');
  }

  async clearPosted(): Promise<void> {
    await this.page.evaluate(() => {
      (window as unknown as TestWindow).__vscodeTest.posted.length = 0;
    });
  }

  async probe(): Promise<Probe> {
    return this.page.evaluate(() => {
      const w = window as unknown as TestWindow & { __xss?: unknown };
      const t = w.__vscodeTest;
      return {
        xss: w.__xss,
        acquired: t.acquired,
        unexpectedPostMessage: t.unexpectedPostMessage.slice(),
        opened: t.opened.slice(),
        csp: t.csp.slice(),
        acquireIsFunction: typeof (w as unknown as { acquireVsCodeApi: unknown }).acquireVsCodeApi === 'function',
      };
    });
  }

  async savedState(): Promise<unknown> {
    return this.page.evaluate(() => (window as unknown as TestWindow).__vscodeTest.savedState());
  }
}

interface TestWindow {
  __vscodeTest: {
    posted: ChatToHost[];
    rootTextAtReady: string | null;
    stateWrites: number;
    acquired: number;
    unexpectedPostMessage: string[];
    opened: string[];
    csp: CspViolation[];
    deliverAll(msgs: HostToChat[]): void;
    savedState(): unknown;
    /** Drops the saved state and ignores later saves (the page is being left for the next test). */
    forgetState(): void;
  };
}

export type { TestWindow };

export class WebviewHarness {
  private constructor(
    readonly origin: string,
    readonly browser: Browser,
    /** Every path the server was asked for (leaks show up here even if the page missed them). */
    readonly served: string[],
    private readonly cleanup: Cleanup,
  ) {}

  /** Builds the bundle, starts the server and the browser; if any step fails, stops what it started. */
  static async start(): Promise<WebviewHarness> {
    // The browser is the step most likely to be missing: say so before building anything.
    assertChromiumInstalled();
    return setUp(async (cleanup) => {
      const dir = cleanup.add(await mkdtemp(join(tmpdir(), 'splitpoint-webview-')), (d) => rm(d, { recursive: true, force: true }));
      // Same options as esbuild.mjs's webview builds.
      await esbuild.build({
        entryPoints: { chat: join(ROOT, 'webview/chat/main.tsx'), sanitize: join(ROOT, 'test/webview/sanitize-entry.ts') },
        outdir: dir,
        bundle: true,
        platform: 'browser',
        format: 'iife',
        target: 'chrome120',
        jsx: 'automatic',
        jsxImportSource: 'preact',
        sourcemap: false,
        logLevel: 'warning',
        legalComments: 'none',
      });
      const server = cleanup.add(await startStaticServer((url, origin) => route(url, origin, dir)), (s) => s.close());
      const browser = cleanup.add(await launchChromium(), (b) => b.close());
      return new WebviewHarness(server.origin, browser, server.served, cleanup);
    });
  }

  private tab: { context: BrowserContext; page: Page } | undefined;
  private current: WebviewPage | undefined;

  /**
   * The page at a freshly loaded view ('ready' posted), with empty saved state. One tab is reused
   * across tests (a new browser context costs ~0.5 s); its sessionStorage is cleared first.
   */
  async open(opts: { theme?: Theme; page?: 'chat' | 'sanitize'; width?: number; height?: number } = {}): Promise<WebviewPage> {
    if (!this.tab) {
      const context = await this.browser.newContext({ locale: 'en-US' });
      this.tab = { context, page: await context.newPage() };
    }
    const { page } = this.tab;
    this.current?.detach();
    // The previous page saves its state again as it unloads (pagehide): it forgets first, so none of it reaches this one.
    if (page.url().startsWith(this.origin))
      await page.evaluate(() => {
        (window as unknown as Partial<TestWindow>).__vscodeTest?.forgetState();
        sessionStorage.clear();
      });
    await page.setViewportSize({ width: opts.width ?? 420, height: opts.height ?? 760 });
    await page.emulateMedia({ colorScheme: opts.theme === 'light' ? 'light' : 'dark' });
    const wp = new WebviewPage(page, this.origin);
    this.current = wp;
    const which = opts.page ?? 'chat';
    await page.goto(`${this.origin}/${which}.html?theme=${opts.theme ?? 'dark'}`);
    if (which === 'chat')
      await page.waitForFunction(() => (window as unknown as TestWindow).__vscodeTest.posted.some((m) => m.type === 'ready'));
    return wp;
  }

  /** Closes the browser and the server and removes the bundle. */
  async close(): Promise<void> {
    await this.cleanup.run();
  }
}

const TEXT = { html: 'text/html', js: 'text/javascript', css: 'text/css' };

/** The pages (built by src/extension/webviewHtml.ts, with the fake VS Code API), the bundles and the styles. */
async function route(url: URL, origin: string, dir: string): Promise<StaticResponse | undefined> {
  if (url.pathname === '/chat.html' || url.pathname === '/sanitize.html') {
    const theme: Theme = url.searchParams.get('theme') === 'light' ? 'light' : 'dark';
    const nonce = makeNonce();
    const html = buildWebviewHtml({
      title: 'Splitpoint Chat',
      nonce,
      cspSource: origin,
      scriptUri: `${origin}/${url.pathname === '/chat.html' ? 'chat' : 'sanitize'}.js`,
      styleUris: [`${origin}/test/theme-${theme}.css`, `${origin}/media/chat.css`],
    });
    // The fake VS Code API goes in as its own nonce'd script file, before the bundle.
    const withFake = html.replace('</head>', `  <script nonce="${nonce}" src="${origin}/test/fake-vscode.js"></script>\n  </head>`);
    return { type: TEXT.html, body: withFake };
  }
  if (url.pathname === '/chat.js' || url.pathname === '/sanitize.js')
    return { type: TEXT.js, body: await readFile(join(dir, url.pathname)) };
  if (url.pathname === '/media/chat.css' || url.pathname === '/media/shared.css')
    return { type: TEXT.css, body: await readFile(join(ROOT, url.pathname)) };
  if (/^\/test\/(fake-vscode\.js|theme-(dark|light)\.css)$/.test(url.pathname)) {
    const type = extname(url.pathname) === '.js' ? TEXT.js : TEXT.css;
    return { type, body: await readFile(join(ROOT, 'test/webview', url.pathname.slice('/test/'.length))) };
  }
  return undefined;
}

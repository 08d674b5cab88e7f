// Headless-browser harness for the context inspector: builds the webview bundle, serves it on
// 127.0.0.1 with the page shell and CSP VS Code uses (plus a fake acquireVsCodeApi from its own
// nonce'd script file), and plays the extension host: it turns sessions into InspectorSessions with
// buildInspectorSession and answers preview / showMessage posts with the real engine.
import type { AutoCompactDecision } from '../../src/core/pipeline/autoCompactDecision';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { assertChromiumInstalled, launchChromium } from '../helpers/chromium';
import { setUp } from '../helpers/cleanup';
import { startStaticServer, type StaticResponse } from '../helpers/staticServer';
import type { Message } from '../../src/core/conversation/conversation';
import { applyPlan, type CompactionPlan, type PlanContext } from '../../src/core/pipeline/plan';
import type { CompactionRecord } from '../../src/core/session/session';
import { planWith } from '../../src/core/strategies';
import { planMicroCompact } from '../../src/core/strategies/microCompact';
import { buildInspectorSession } from '../../src/inspector/inspectorModel';
import { messageDetail } from '../../src/inspector/messageText';
import { planToView } from '../../src/inspector/planViews';
import { markOutside, outsideCompaction } from '../../src/inspector/standingView';
import type { HostToInspector, InspectorSession, InspectorToHost, StandingView } from '../../src/protocol';
import { parseInspectorToHost } from '../../src/protocol/validation';
import { buildWebviewHtml, makeNonce } from '../../src/extension/webviewHtml';

const ROOT = join(import.meta.dirname ?? __dirname, '..', '..');

export function launchBrowser(): Promise<Browser> {
  return launchChromium();
}

/** Bundle webview/inspector/main.tsx the way esbuild.mjs does, into a fresh temp dir. */
export async function buildInspectorBundle(): Promise<{ dir: string; script: string; dispose(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'sp-inspector-'));
  const script = join(dir, 'inspector.js');
  await esbuild.build({
    entryPoints: [join(ROOT, 'webview', 'inspector', 'main.tsx')],
    outfile: script,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    logLevel: 'silent',
    legalComments: 'none',
  });
  return { dir, script, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

// ---------------------------------------------------------------------------------------------
// Theme palettes: the variables VS Code injects into a webview (a subset), Light Modern and Dark Modern.

const COMMON = `
  --vscode-font-family: "DejaVu Sans", system-ui, sans-serif;
  --vscode-font-weight: normal;
  --vscode-font-size: 13px;
  --vscode-editor-font-family: "DejaVu Sans Mono", monospace;
  --vscode-editor-font-size: 12px;`;

const PALETTES: Record<'light' | 'dark', Record<string, string>> = {
  light: {
    foreground: '#3b3b3b',
    descriptionForeground: '#717171',
    errorForeground: '#f85149',
    focusBorder: '#005fb8',
    contrastBorder: 'transparent',
    'editor-background': '#ffffff',
    'sideBar-background': '#f8f8f8',
    'editorWidget-background': '#f8f8f8',
    'widget-border': '#e5e5e5',
    'panel-border': '#e5e5e5',
    'button-background': '#005fb8',
    'button-foreground': '#ffffff',
    'button-hoverBackground': '#0258a8',
    'button-border': 'rgba(0, 0, 0, 0.1)',
    'button-secondaryBackground': '#e5e5e5',
    'button-secondaryForeground': '#3b3b3b',
    'button-secondaryHoverBackground': '#cccccc',
    'input-background': '#ffffff',
    'input-foreground': '#3b3b3b',
    'input-border': '#cecece',
    'inputValidation-errorBackground': '#f2dede',
    'inputValidation-errorBorder': '#be1100',
    'inputValidation-infoBackground': '#d6ecf2',
    'inputValidation-infoBorder': '#007acc',
    'badge-background': '#cccccc',
    'badge-foreground': '#3b3b3b',
    'progressBar-background': '#005fb8',
    'editorWarning-foreground': '#bf8803',
    'editorInfo-foreground': '#1a85ff',
    'textLink-foreground': '#005fb8',
    'textLink-activeForeground': '#005fb8',
    'textCodeBlock-background': '#f2f2f2',
    'list-hoverBackground': '#f2f2f2',
    'list-activeSelectionBackground': '#e8e8e8',
    'list-activeSelectionForeground': '#000000',
    'list-inactiveSelectionBackground': '#e4e6f1',
    'list-focusOutline': '#005fb8',
    'icon-foreground': '#3b3b3b',
    'charts-foreground': '#616161',
    'charts-blue': '#1a85ff',
    'charts-red': '#e51400',
    'charts-green': '#388a34',
    'charts-yellow': '#bf8803',
    'charts-orange': '#d18616',
    'charts-purple': '#652d90',
    'terminal-ansiCyan': '#0598bc',
    'terminal-ansiMagenta': '#bc05bc',
    'terminal-ansiBrightBlack': '#666666',
  },
  dark: {
    foreground: '#cccccc',
    descriptionForeground: '#9d9d9d',
    errorForeground: '#f85149',
    focusBorder: '#0078d4',
    contrastBorder: 'transparent',
    'editor-background': '#1f1f1f',
    'sideBar-background': '#181818',
    'editorWidget-background': '#202020',
    'widget-border': '#313131',
    'panel-border': '#2b2b2b',
    'button-background': '#0078d4',
    'button-foreground': '#ffffff',
    'button-hoverBackground': '#026ec1',
    'button-border': 'rgba(255, 255, 255, 0.07)',
    'button-secondaryBackground': '#313131',
    'button-secondaryForeground': '#cccccc',
    'button-secondaryHoverBackground': '#3c3c3c',
    'input-background': '#313131',
    'input-foreground': '#cccccc',
    'input-border': '#3c3c3c',
    'inputValidation-errorBackground': '#5a1d1d',
    'inputValidation-errorBorder': '#be1100',
    'inputValidation-infoBackground': '#063b49',
    'inputValidation-infoBorder': '#007acc',
    'badge-background': '#616161',
    'badge-foreground': '#f8f8f8',
    'progressBar-background': '#0078d4',
    'editorWarning-foreground': '#cca700',
    'editorInfo-foreground': '#3794ff',
    'textLink-foreground': '#4daafc',
    'textLink-activeForeground': '#4daafc',
    'textCodeBlock-background': '#2b2b2b',
    'list-hoverBackground': '#2a2d2e',
    'list-activeSelectionBackground': '#04395e',
    'list-activeSelectionForeground': '#ffffff',
    'list-inactiveSelectionBackground': '#37373d',
    'list-focusOutline': '#0078d4',
    'icon-foreground': '#cccccc',
    'charts-foreground': '#cccccc',
    'charts-blue': '#3794ff',
    'charts-red': '#f14c4c',
    'charts-green': '#89d185',
    'charts-yellow': '#cca700',
    'charts-orange': '#d18616',
    'charts-purple': '#b180d7',
    'terminal-ansiCyan': '#11a8cd',
    'terminal-ansiMagenta': '#bc3fbc',
    'terminal-ansiBrightBlack': '#666666',
  },
};

export type Theme = 'light' | 'dark';

export function themeCss(theme: Theme): string {
  const vars = Object.entries(PALETTES[theme])
    .map(([k, v]) => `  --vscode-${k}: ${v};`)
    .join('\n');
  return `/* VS Code ${theme} theme variables (harness) */\nhtml {${COMMON}\n${vars}\n}\n`;
}

/** Stands in for acquireVsCodeApi; a file of its own (the CSP allows no inline script). */
const FAKE_VSCODE_JS = `(function () {
  'use strict';
  var KEY = 'splitpoint-inspector-harness-state';
  var test = { posted: [], csp: [], acquired: 0 };
  window.__inspectorTest = test;
  document.addEventListener('securitypolicyviolation', function (e) {
    test.csp.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sourceFile || '') + ':' + e.lineNumber);
  });
  var api = Object.freeze({
    postMessage: function (msg) {
      var copy = JSON.parse(JSON.stringify(msg));
      test.posted.push(copy);
      if (typeof window.__inspectorHost === 'function') window.__inspectorHost(copy);
    },
    getState: function () {
      var raw = sessionStorage.getItem(KEY);
      return raw ? JSON.parse(raw) : undefined;
    },
    setState: function (s) {
      sessionStorage.setItem(KEY, JSON.stringify(s));
    },
  });
  window.acquireVsCodeApi = function () {
    test.acquired++;
    if (test.acquired > 1) throw new Error('An instance of the VS Code API has already been acquired');
    return api;
  };
  var theme = new URLSearchParams(location.search).get('theme') || 'dark';
  document.body.classList.add(theme === 'light' ? 'vscode-light' : 'vscode-dark');
  document.body.setAttribute('data-vscode-theme-kind', theme === 'light' ? 'vscode-light' : 'vscode-dark');
})();
`;

export interface HarnessServer {
  origin: string;
  url(theme?: Theme): string;
  close(): Promise<void>;
}

/** Serve the page shell, the bundle, the stylesheets and the fake API. Each page load gets a new nonce. */
export async function startHarnessServer(bundle: { script: string }): Promise<HarnessServer> {
  const css = readFileSync(join(ROOT, 'media', 'inspector.css'), 'utf8');
  const server = await startStaticServer((url, origin): StaticResponse | undefined => {
    switch (url.pathname) {
      case '/': {
        const theme: Theme = url.searchParams.get('theme') === 'light' ? 'light' : 'dark';
        const nonce = makeNonce();
        const shell = buildWebviewHtml({
          scriptUri: `${origin}/inspector.js`,
          styleUris: [`${origin}/theme-${theme}.css`, `${origin}/inspector.css`],
          cspSource: origin,
          nonce,
          title: 'Splitpoint Inspector',
        });
        // The fake API must run before the bundle: its own nonce'd script file, first in <body>.
        const html = shell.replace('<body>', `<body>\n    <script nonce="${nonce}" src="${origin}/fake-vscode.js"></script>`);
        if (html === shell) throw new Error('page shell has no <body>');
        const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1]?.replace(/&#39;/g, "'");
        return { type: 'text/html', body: html, headers: csp ? { 'content-security-policy': csp } : {} };
      }
      case '/inspector.js':
        return { type: 'text/javascript', body: readFileSync(bundle.script, 'utf8') };
      case '/fake-vscode.js':
        return { type: 'text/javascript', body: FAKE_VSCODE_JS };
      case '/inspector.css':
        return { type: 'text/css', body: css };
      case '/theme-light.css':
        return { type: 'text/css', body: themeCss('light') };
      case '/theme-dark.css':
        return { type: 'text/css', body: themeCss('dark') };
      default:
        return undefined;
    }
  });
  return { origin: server.origin, url: (theme: Theme = 'dark') => `${server.origin}/?theme=${theme}`, close: () => server.close() };
}

export interface InspectorHarness {
  browser: Browser;
  server: HarnessServer;
  /** Closes the browser and the server and removes the bundle. */
  close(): Promise<void>;
}

/** Bundle, server and browser for a test file; if any step fails, what was started is stopped. */
export async function startInspectorHarness(): Promise<InspectorHarness> {
  // The browser is the step most likely to be missing: say so before building anything.
  assertChromiumInstalled();
  return setUp(async (cleanup) => {
    const bundle = cleanup.add(await buildInspectorBundle(), (b) => b.dispose());
    const server = cleanup.add(await startHarnessServer(bundle), (s) => s.close());
    const browser = cleanup.add(await launchBrowser(), (b) => b.close());
    return { browser, server, close: () => cleanup.run() };
  });
}

// ---------------------------------------------------------------------------------------------
// The fake extension host

export interface SessionFixture {
  messages: Message[];
  compactions?: CompactionRecord[];
  tailStartId?: string | null;
  canUndo?: boolean;
  readOnly?: boolean;
  source?: string;
  sessionId?: string;
  title?: string;
  overhead?: { system: number; tools: number };
  threshold?: number | null;
  strategyParams?: Record<string, Record<string, number>>;
  /** The live session's standing context (instructions, task list) with its tokens (issue 23). */
  standing?: StandingView;
  /** The live session's last auto-compaction decision (issue 25). */
  autoCompactDecision?: AutoCompactDecision;
}

export const MICRO = { keepRecent: 3, minChars: 100 };

export class InspectorHost {
  readonly posted: InspectorToHost[] = [];
  readonly malformed: unknown[] = [];
  /** Plans computed per request id (with the figures sent). */
  readonly plans = new Map<number, CompactionPlan>();
  /** Answer preview and showMessage posts automatically (off: the test answers by hand). */
  autoAnswer = true;
  fixture!: SessionFixture;
  messages: Message[] = [];
  effective: readonly Message[] = [];
  session!: InspectorSession;
  /** Host-side time of the last load(): micro-compaction plus buildInspectorSession (first token counts included). */
  lastBuildMs = 0;
  private waiters: Array<{ pred: (m: InspectorToHost) => boolean; resolve: (m: InspectorToHost) => void }> = [];

  constructor(
    readonly page: Page,
    readonly ctx: PlanContext,
  ) {}

  /** Install the page -> host channel; call before the first navigation. */
  async attach(): Promise<void> {
    await this.page.exposeFunction('__inspectorHost', (raw: unknown) => this.receive(raw));
  }

  /** Build the InspectorSession for a history (effective = micro-compacted view), as the extension does. */
  load(f: SessionFixture): InspectorSession {
    this.fixture = f;
    this.messages = f.messages;
    const t0 = performance.now();
    this.effective = planMicroCompact(f.messages, MICRO, this.ctx).output;
    this.session = buildInspectorSession({
      source: f.source ?? 'Current session',
      readOnly: f.readOnly ?? false,
      sessionId: f.sessionId ?? 'test-session',
      title: f.title ?? 'Fix the leap-year bug',
      messages: f.messages,
      effective: this.effective,
      compactions: f.compactions ?? [],
      ctx: this.ctx,
      overhead: f.overhead ?? { system: 2_400, tools: 1_800 },
      autoCompactThreshold: f.threshold === undefined ? Math.round(this.ctx.contextWindow * 0.8) : f.threshold,
      strategyParams: f.strategyParams,
      canUndo: f.canUndo ?? false,
      tailStartId: f.tailStartId ?? null,
      ...(f.standing ? { standing: f.standing } : {}),
      ...(f.autoCompactDecision ? { autoCompactDecision: f.autoCompactDecision } : {}),
    });
    this.lastBuildMs = performance.now() - t0;
    return this.session;
  }

  async showSession(f: SessionFixture): Promise<void> {
    this.load(f);
    await this.send({ type: 'session', session: this.session });
  }

  /** Deliver a host message the way VS Code's webview frame does (a MessageEvent on window). */
  async send(message: HostToInspector): Promise<void> {
    await this.page.evaluate((m) => {
      window.dispatchEvent(new MessageEvent('message', { data: m }));
    }, message);
  }

  plan(strategy: string, params: Record<string, number>): { plan: CompactionPlan; ms: number } {
    const t0 = performance.now();
    const plan = planWith(strategy, this.messages, params, this.ctx);
    return { plan, ms: performance.now() - t0 };
  }

  async answerPreview(m: Extract<InspectorToHost, { type: 'preview' }>): Promise<void> {
    try {
      const { plan, ms } = this.plan(m.strategy, m.params);
      this.plans.set(m.requestId, plan);
      const view = planToView(plan, m.requestId, ms);
      // As InspectorService does for the live session: what stays outside compaction, and a plan over the limit because of it.
      const { standing, overhead = { system: 2_400, tools: 1_800 } } = this.fixture;
      if (standing)
        markOutside(
          view,
          outsideCompaction(overhead, standing, view.pinnedTokens ?? 0),
          this.ctx.contextWindow - this.ctx.maxOutputTokens, // the window less the answer's room, as InspectorService
        );
      await this.send({ type: 'plan', plan: view });
    } catch (e) {
      await this.send({ type: 'planError', requestId: m.requestId, message: (e as Error).message });
    }
  }

  async answerDetail(id: string): Promise<void> {
    const i = this.messages.findIndex((m) => m.id === id);
    if (i < 0) return;
    await this.send({ type: 'detail', detail: messageDetail(this.messages[i], this.effective[i], this.session.rows[i].tokens) });
  }

  /** The history an apply of `plan` would leave (summary filled in), and its compaction record. */
  applied(plan: CompactionPlan, focus?: string): { messages: Message[]; record: CompactionRecord } {
    const transcriptPath = '/tmp/splitpoint/transcripts/test-session-0001.jsonl';
    const next = applyPlan(plan, {
      summary: plan.needsSummary
        ? `The user is fixing a leap-year bug in the date parser. <b>not bold</b>${focus ? ` Focus: ${focus}` : ''}`
        : undefined,
      transcriptPath,
    });
    const record: CompactionRecord = {
      id: `cmp_${plan.strategy}`,
      at: Date.UTC(2026, 10, 22, 14, 30),
      strategy: plan.strategy,
      params: plan.params,
      trigger: 'inspector',
      tokensBefore: plan.tokensBefore,
      tokensAfter: this.ctx.tokens.countMessages(next),
      archivedCount: plan.archived.length,
      truncatedCount: plan.truncated.length,
      transcriptPath,
      syntheticId: plan.syntheticIndex === null ? null : next[plan.syntheticIndex].id,
      tailStartId: plan.tailStartId,
      resultLength: next.length,
      ...(focus ? { focus } : {}),
    };
    return { messages: next, record };
  }

  /** Resolves with the next post matching `pred` (or one already received after `since`). */
  waitForPost<T extends InspectorToHost>(pred: (m: InspectorToHost) => m is T, timeoutMs?: number, since?: number): Promise<T>;
  waitForPost(pred: (m: InspectorToHost) => boolean, timeoutMs?: number, since?: number): Promise<InspectorToHost>;
  waitForPost(pred: (m: InspectorToHost) => boolean, timeoutMs = 5_000, since?: number): Promise<InspectorToHost> {
    if (since !== undefined) {
      const hit = this.posted.slice(since).find(pred);
      if (hit) return Promise.resolve(hit);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no matching post within ${timeoutMs} ms; posted: ${JSON.stringify(this.posted.slice(-5))}`));
      }, timeoutMs);
      const waiter = {
        pred,
        resolve: (m: InspectorToHost) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      this.waiters.push(waiter);
    });
  }

  private async receive(raw: unknown): Promise<void> {
    const m = parseInspectorToHost(raw);
    if (!m) {
      this.malformed.push(raw);
      return;
    }
    this.posted.push(m);
    for (const w of [...this.waiters]) {
      if (w.pred(m)) {
        this.waiters = this.waiters.filter((x) => x !== w);
        w.resolve(m);
      }
    }
    if (!this.autoAnswer) return;
    if (m.type === 'preview') await this.answerPreview(m);
    else if (m.type === 'showMessage') await this.answerDetail(m.id);
  }
}

/** Open the inspector in a new page acting as its host; resolves once the page posted 'ready'. */
export async function openInspector(
  browser: Browser,
  server: HarnessServer,
  ctx: PlanContext,
  theme: Theme = 'dark',
  viewport = { width: 1280, height: 800 },
  makeHost: (page: Page, ctx: PlanContext) => InspectorHost = (pg, c) => new InspectorHost(pg, c),
) {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  // tsx compiles the tests with esbuild's keepNames, which wraps named functions inside the callbacks
  // handed to page.evaluate in __name(...) calls; give the page a no-op __name (test code only, injected
  // by the browser protocol, so the page's CSP is untouched).
  await page.addInitScript('window.__name = function (f) { return f; };');
  const host = makeHost(page, ctx);
  try {
    await host.attach();
    const ready = host.waitForPost((m) => m.type === 'ready', 10_000);
    // If the navigation fails, the wait still settles (rejects) on its own timer: not unhandled.
    ready.catch(() => undefined);
    await page.goto(server.url(theme));
    await ready;
  } catch (e) {
    await page.close().catch(() => undefined);
    throw e;
  }
  return { page, host, errors };
}

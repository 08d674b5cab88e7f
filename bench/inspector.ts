// Item 5: the inspector webview in headless Chromium: time to the first rendered row after the
// host's 'session' message (and to the whole view), to the repaint when a followed session grows by
// one model call, and from a plan answer to its highlight, at each size.
//
// The page is the shell VS Code gets (src/extension/webviewHtml.ts: CSP with a nonce), serving the built
// bundle dist/webview/inspector.js and media/inspector.css from 127.0.0.1, plus the bench's fake
// acquireVsCodeApi (bench/inspector/fake-vscode-api.js, its own nonce'd script file). The host side
// is played here with the real engine: buildInspectorSession for the session, plan() + planToView
// for previews.
//
// Selectors this relies on (from the inspector's DOM; update here if the webview changes):
//   a rendered row      .timeline [role=option]
//   the whole view      [data-strategy] [data-action=preview]  and  .minimap .mm-cols > *  (drawn after the first frame)
//   rows held           .timeline[data-count="<n>"]
//   a strategy preview  [data-strategy="<name>"] [data-action=preview]
//   a plan shown        .plan-summary[data-request-id="<id>"]  and  [data-marker="preview-split"]
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { DEFAULT_PLAN_CONTEXT, type PlanContext } from '../src/core/pipeline/plan';
import { planWith } from '../src/core/strategies';
import { planMicroCompact } from '../src/core/strategies/microCompact';
import { createTokenizer, warmupTokenizer } from '../src/core/counting/tokenizers';
import { MemoizedMessageCounter } from '../src/core/counting/tokens';
import type { InspectorSession, PlanView } from '../src/protocol';
import { sizeLabel, type BenchContext } from './context';
import {
  fmtBytes,
  fmtMs,
  fmtRatio,
  log,
  median,
  notAvailable,
  REPO,
  sample,
  stat,
  type SectionResult,
  type Table,
  type TargetResult,
} from './lib';
import { benchExchange, type BenchSize } from './sessions';
import type { Message } from '../src/core/conversation/conversation';
import { CHROMIUM_PATH, launchChromium } from '../test/helpers/chromium';
import { buildInspectorSession } from '../src/inspector/inspectorModel';
import { planToView } from '../src/inspector/planViews';

const TITLE = '5. Inspector (headless Chromium)';
const TARGET = "the inspector's first paint <= 100 ms at every size";
const STRATEGIES_CLICKED = ['sliding-window', 'recent-token-fraction'];
const ROW = '.timeline [role=option]';
/** The whole view is there: the controls column and the minimap's columns (drawn once the first frame is painted). */
const COMPLETE = ['[data-strategy] [data-action=preview]', '.minimap .mm-cols > *'];
const rowsHeld = (n: number) => `.timeline[data-count="${n}"]`;

interface PageRun {
  readyMs: number;
  /** dispatch of 'session' -> first row in the DOM. */
  firstRowMs: number;
  /** dispatch of 'session' -> the frame after the first row (painted). */
  firstPaintMs: number;
  /** dispatch of 'session' -> the whole view (controls column, minimap) in the DOM and painted. */
  completePaintMs: number;
  /** The session grew by one model call (the next 'session' message) -> its rows counted in the DOM / painted. */
  grow: { domMs: number; paintMs: number };
  /** plan answer delivered -> its summary and split marker in the DOM / painted. */
  previews: Array<{ strategy: string; domMs: number; paintMs: number; clickToPaintMs: number }>;
}

interface HostMeasurement {
  session: InspectorSession;
  json: string;
  /** The same session one model call later (one more exchange), as a followed session is sent again. */
  grown: { json: string; rows: number };
  buildMs: number[];
  plans: Record<string, PlanView>;
  planMs: Record<string, number[]>;
}

export async function benchInspector(ctx: BenchContext): Promise<SectionResult> {
  const bundle = join(REPO, 'dist', 'webview', 'inspector.js');
  if (!existsSync(bundle))
    return notAvailable('inspector', TITLE, 'dist/webview/inspector.js does not exist (webview/inspector/main.tsx not built)', [TARGET]);
  if (!existsSync(join(REPO, 'src', 'extension', 'webviewHtml.ts')))
    return notAvailable('inspector', TITLE, 'src/extension/webviewHtml.ts (the page shell) does not exist', [TARGET]);
  if (!existsSync(CHROMIUM_PATH)) return notAvailable('inspector', TITLE, `${CHROMIUM_PATH} is not installed`, [TARGET]);

  // --- Host side: the InspectorSession and the plan views, with the real engine (warm counter).
  const tokenizer = createTokenizer('gpt-tokenizer');
  warmupTokenizer(tokenizer);
  const host: Record<number, HostMeasurement> = {};
  for (const size of ctx.sizes) {
    const measured = measureHost(ctx, size, tokenizer);
    if (typeof measured === 'string') return notAvailable('inspector', TITLE, measured, [TARGET]);
    host[size] = measured;
  }
  const pages = await measurePages(ctx, bundle, host);
  if ('failure' in pages) return notAvailable('inspector', TITLE, `the page did not behave as expected: ${pages.failure}`, [TARGET]);
  return inspectorReport(ctx, host, pages.runs);
}

/** The host side at one size: building the InspectorSession and the plan views of the clicked previews (or why it failed). */
export function measureHost(ctx: BenchContext, size: BenchSize, tokenizer: ReturnType<typeof createTokenizer>): HostMeasurement | string {
  const messages = ctx.sessions.get(size)!;
  const counter = new MemoizedMessageCounter(tokenizer);
  counter.countMessages(messages);
  const pctx: PlanContext = { ...DEFAULT_PLAN_CONTEXT, tokens: counter };
  const microCompacted = (history: Message[]) => planMicroCompact(history, { keepRecent: 3, minChars: 100 }, pctx).output;
  const sessionOf = (history: Message[], effective: Message[]) =>
    buildInspectorSession({
      source: 'Current session',
      readOnly: false,
      sessionId: `bench-${size}`,
      title: `Bench session, ${size} messages`,
      messages: history,
      effective,
      compactions: [],
      ctx: pctx,
      overhead: { system: 2_400, tools: 1_800 },
      autoCompactThreshold: Math.round(pctx.contextWindow * 0.8),
      canUndo: false,
      tailStartId: null,
    });
  const effective = microCompacted(messages);
  let session!: InspectorSession;
  const buildMs = sample(() => (session = sessionOf(messages, effective)), ctx.quick ? 2 : 7, 1);
  const grown = [...messages, ...benchExchange(size)];
  const grownSession = sessionOf(grown, microCompacted(grown));
  if (!Array.isArray(session.rows) || session.rows.length !== messages.length) {
    return `buildInspectorSession returned ${session.rows?.length} rows for ${messages.length} messages`;
  }
  const plans: Record<string, PlanView> = {};
  const planMs: Record<string, number[]> = {};
  for (const strategy of STRATEGIES_CLICKED) {
    planMs[strategy] = sample(
      () => {
        const t = performance.now();
        const plan = planWith(strategy, messages, {}, pctx);
        plans[strategy] = planToView(plan, 0, performance.now() - t);
      },
      ctx.quick ? 2 : 7,
      1,
    );
  }
  return {
    session,
    json: JSON.stringify({ type: 'session', session }),
    grown: { json: JSON.stringify({ type: 'session', session: grownSession }), rows: grownSession.rows.length },
    buildMs,
    plans,
    planMs,
  };
}

/** The page: fresh pages per size, each loading the session and clicking the previews. */
export async function measurePages(
  ctx: BenchContext,
  bundle: string,
  host: Record<number, HostMeasurement>,
): Promise<{ runs: Record<number, PageRun[]> } | { failure: string }> {
  const server = await serve(bundle);
  const browser = await launchChromium();
  const runs: Record<number, PageRun[]> = {};
  let failure: string | undefined;
  try {
    const loads = ctx.quick ? 2 : 5;
    for (const size of ctx.sizes) {
      runs[size] = [];
      for (let i = 0; i < loads; i++) {
        const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
        try {
          runs[size].push(await measurePage(page, server.url, host[size]));
        } finally {
          await page.close();
        }
      }
      log(`inspector at ${size} messages: first paint ${fmtMs(median(runs[size].map((r) => r.firstPaintMs)))}`);
    }
  } catch (e) {
    failure = (e as Error).message.split('\n')[0];
  } finally {
    await browser.close();
    await server.close();
  }
  return failure ? { failure } : { runs };
}

function inspectorReport(ctx: BenchContext, host: Record<number, HostMeasurement>, runs: Record<number, PageRun[]>): SectionResult {
  const sizes = ctx.sizes;
  const small = sizes[0];
  const large = sizes[sizes.length - 1];
  const m = (size: BenchSize, f: (r: PageRun) => number) => median(runs[size].map(f));
  const pm = (size: BenchSize, f: (p: PageRun['previews'][number]) => number) => median(runs[size].flatMap((r) => r.previews.map(f)));
  const row = (label: string, v: (s: BenchSize) => number) => [label, ...sizes.flatMap((s) => [fmtMs(v(s)), fmtRatio(v(s) / v(small))])];
  const table: Table = {
    title: `5. Inspector: time to first render and to a preview update (baseline: the same at ${small} messages)`,
    columns: ['measure', ...sizes.flatMap((s) => [sizeLabel(ctx, s), `ratio vs ${small}`])],
    rows: [
      row("'session' message -> first row in the DOM", (s) => m(s, (r) => r.firstRowMs)),
      row("'session' message -> first row painted (next frame)", (s) => m(s, (r) => r.firstPaintMs)),
      row("'session' message -> whole view painted (controls column, minimap)", (s) => m(s, (r) => r.completePaintMs)),
      row("followed session grows by one call: 'session' message -> new row count in the DOM", (s) => m(s, (r) => r.grow.domMs)),
      row("followed session grows by one call: 'session' message -> painted", (s) => m(s, (r) => r.grow.paintMs)),
      row('plan answer -> highlight in the DOM (split marker + summary)', (s) => pm(s, (p) => p.domMs)),
      row('plan answer -> highlight painted', (s) => pm(s, (p) => p.paintMs)),
      row('preview click -> highlight painted, with an instant host', (s) => pm(s, (p) => p.clickToPaintMs)),
      row('host: buildInspectorSession (memo warm)', (s) => median(host[s].buildMs)),
      row(`host: plan() + planToView for a preview (${STRATEGIES_CLICKED.join(', ')})`, (s) =>
        median(STRATEGIES_CLICKED.flatMap((k) => host[s].planMs[k])),
      ),
      row('page load -> webview ready (bundle parse + first render)', (s) => m(s, (r) => r.readyMs)),
    ],
    notes: [
      `Median of ${ctx.quick ? 2 : 5} fresh pages per size (viewport 1200x900), ` +
        `${STRATEGIES_CLICKED.length} previews each (${STRATEGIES_CLICKED.join(', ')}, default parameters). ` +
        `Times are taken inside the page with performance.now(): from dispatching the message to a MutationObserver seeing the element, ` +
        `and to the first setTimeout after the next requestAnimationFrame (painted). ` +
        `The first frame holds the rows in view; the controls column and the minimap's columns follow once it is painted ("whole view"). ` +
        `"Grows by one call": after the previews, the same session with one more exchange (a tool call and its result) ` +
        `is sent again, as for a followed session.`,
      `'session' payload (JSON): ${sizes.map((s) => `${fmtBytes(host[s].json.length)} at ${s} msgs`).join(', ')}; ` +
        `it is delivered as an already-parsed object, as VS Code does. The host-side figures are outside the page (extension host).`,
    ],
  };
  const first = (s: BenchSize) => m(s, (r) => r.firstPaintMs);
  const worst = Math.max(...sizes.map(first));
  const targets: TargetResult[] = [
    {
      target: TARGET,
      status: worst <= 100 ? 'met' : 'missed',
      detail:
        `first row painted ${sizes.map((s) => `${fmtMs(first(s))} at ${s}`).join(', ')} messages after the 'session' message ` +
        `(whole view ${fmtMs(m(large, (r) => r.completePaintMs))} at ${large}); a followed session growing by one call repaints in ` +
        `${fmtMs(m(large, (r) => r.grow.paintMs))} at ${large}; host buildInspectorSession ${fmtMs(median(host[large].buildMs))}; ` +
        `preview highlight painted ${fmtMs(pm(large, (p) => p.paintMs))} after the plan arrives`,
    },
  ];
  return {
    id: 'inspector',
    title: TITLE,
    tables: [table],
    targets,
    data: {
      pages: runs,
      host: Object.fromEntries(
        Object.entries(host).map(([s, h]) => [
          s,
          {
            payloadChars: h.json.length,
            buildMs: stat(h.buildMs),
            planMs: Object.fromEntries(Object.entries(h.planMs).map(([k, xs]) => [k, stat(xs)])),
          },
        ]),
      ),
    },
  };
}

async function measurePage(page: import('playwright-core').Page, url: string, host: HostMeasurement): Promise<PageRun> {
  // The in-page timing lives in bench/inspector/page-probe.js (a script file the page loads), so
  // nothing here depends on how this file is transpiled.
  type Probe = {
    firstRender(
      json: string,
      row: string,
      complete: string[],
    ): Promise<{ firstRowMs: number; firstPaintMs: number; completePaintMs: number }>;
    grow(json: string, countSelector: string): Promise<PageRun['grow']>;
    preview(strategy: string): Promise<PageRun['previews'][number]>;
  };
  type BenchWindow = { __bench: { readyAt: number | null; plans: unknown }; __benchProbe: Probe };
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as BenchWindow).__bench?.readyAt != null, null, { timeout: 15_000 });
  const readyMs = await page.evaluate(() => (window as unknown as BenchWindow).__bench.readyAt as number);
  await page.evaluate((p) => ((window as unknown as BenchWindow).__bench.plans = p), host.plans);
  const render = await page.evaluate(
    ([json, row, complete]) => (window as unknown as BenchWindow).__benchProbe.firstRender(json, row, complete),
    [host.json, ROW, COMPLETE] as const,
  );
  // Let the first render settle before previews.
  await page.waitForTimeout(300);
  const previews: PageRun['previews'] = [];
  for (const strategy of STRATEGIES_CLICKED) {
    previews.push(await page.evaluate((s) => (window as unknown as BenchWindow).__benchProbe.preview(s), strategy));
    await page.waitForTimeout(100);
  }
  // A followed session: the host sends the session again after each model call.
  const grow = await page.evaluate(([json, count]) => (window as unknown as BenchWindow).__benchProbe.grow(json, count), [
    host.grown.json,
    rowsHeld(host.grown.rows),
  ] as const);
  return { readyMs, ...render, grow, previews };
}

export async function serve(bundle: string): Promise<{ url: string; close(): Promise<void> }> {
  const { buildWebviewHtml, makeNonce } = (await import('../src/extension/webviewHtml')) as typeof import('../src/extension/webviewHtml');
  const files: Record<string, [string, string]> = {
    '/inspector.js': ['text/javascript', bundle],
    '/fake-vscode-api.js': ['text/javascript', join(REPO, 'bench', 'inspector', 'fake-vscode-api.js')],
    '/page-probe.js': ['text/javascript', join(REPO, 'bench', 'inspector', 'page-probe.js')],
    '/theme.css': ['text/css', join(REPO, 'bench', 'inspector', 'theme.css')],
    '/inspector.css': ['text/css', join(REPO, 'media', 'inspector.css')],
  };
  let origin = '';
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', origin).pathname;
    if (path === '/') {
      const nonce = makeNonce();
      const styles = ['/theme.css', '/inspector.css'].filter((p) => existsSync(files[p][1])).map((p) => `${origin}${p}`);
      const shell = buildWebviewHtml({
        scriptUri: `${origin}/inspector.js`,
        styleUris: styles,
        cspSource: origin,
        nonce,
        title: 'Splitpoint Inspector',
      });
      // The fake API and the probe run before the bundle: their own nonce'd script files, first in <body>.
      const html = shell.replace(
        '<body>',
        `<body>\n    <script nonce="${nonce}" src="${origin}/fake-vscode-api.js"></script>` +
          `\n    <script nonce="${nonce}" src="${origin}/page-probe.js"></script>`,
      );
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(html);
      return;
    }
    const file = files[path];
    if (!file || !existsSync(file[1])) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': `${file[0]}; charset=utf-8`, 'cache-control': 'no-store' });
    res.end(readFileSync(file[1]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no server address');
  origin = `http://127.0.0.1:${addr.port}`;
  return { url: `${origin}/`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

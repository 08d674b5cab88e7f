// Renders the context inspector on a real recorded Claude Code session in headless Chromium and writes
// docs/images/inspector.png (the README's screenshot). The page is the real webview bundle; the host is the
// real InspectorService over the imported recording (the Chromium webview tests' harness), counted with
// the o200k tokenizer, with a micro-compaction preview showing (what it would clear, and its cost).
// Run: node --import tsx scripts/screenshot-inspector.ts (needs Chromium, like the webview tests).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  createTokenizer,
  DEFAULT_PLAN_CONTEXT,
  DEFAULT_TOKENIZER,
  importSessionFile,
  MemoizedMessageCounter,
  type PlanContext,
} from '../src/core';
import { openInspector, startInspectorHarness } from '../test/webview/inspector-harness';
import { RecordingHost } from '../test/webview/inspector-recording-host';

const ROOT = join(import.meta.dirname ?? __dirname, '..');
const SESSION = 'test/fixtures/real-sessions/claude-code-cipher-box-a.jsonl';
const OUT = join(ROOT, 'docs', 'images', 'inspector.png');
const VIEWPORT = { width: 1400, height: 900 };
const STRATEGY = 'micro-compact';

async function main(): Promise<void> {
  const result = await importSessionFile(join(ROOT, SESSION));
  if (result.compactions.length === 0) throw new Error(`${SESSION} has no recorded compaction to show`);
  const ctx: PlanContext = {
    ...DEFAULT_PLAN_CONTEXT,
    contextWindow: 200_000,
    tokens: new MemoizedMessageCounter(createTokenizer(DEFAULT_TOKENIZER)),
  };
  const harness = await startInspectorHarness();
  try {
    const { page, host, errors } = await openInspector(
      harness.browser,
      harness.server,
      ctx,
      'dark',
      VIEWPORT,
      (pg, c) => new RecordingHost(pg, c),
    );
    await (host as RecordingHost).showRecording({ source: SESSION, result });
    await page.waitForSelector(`.timeline[data-count="${result.messages.length}"] [role=option]`);
    await page.waitForSelector('[data-marker="recorded-compaction"]');
    await page.click(`[data-strategy="${STRATEGY}"] [data-action=preview]`);
    await page.waitForSelector('.plan-summary');
    if (errors.length > 0) throw new Error(`the page reported errors:\n${errors.join('\n')}`);
    mkdirSync(join(ROOT, 'docs', 'images'), { recursive: true });
    await page.screenshot({ path: OUT });
    console.log(`${OUT}: ${result.messages.length} messages in the current context, ${result.compactions.length} recorded compaction(s)`);
  } finally {
    await harness.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});

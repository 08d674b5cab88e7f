import { join } from 'node:path';
import v8 from 'node:v8';
import { HostCounting } from '../../src/agent/loop/hostCounting';
import { DEFAULT_PLAN_CONTEXT, importSessionFile } from '../../src/core';
import { planWithSliced } from '../../src/core/strategies';
const WORKER = join(process.cwd(), 'dist', 'countWorker.js');
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
let peak = 0; let peakAt = '';
let phase = 'start';
const mb = (x: number) => (x / 1e6).toFixed(0);
const t = setInterval(() => { const r = process.memoryUsage.rss(); if (r > peak) { peak = r; peakAt = phase; } }, 5);
function mark(p: string) {
  const m = process.memoryUsage(); const h = v8.getHeapStatistics();
  console.log(p.padEnd(12), 'rss', mb(m.rss), 'heapUsed', mb(m.heapUsed), 'heapTotal', mb(m.heapTotal), 'external', mb(m.external), 'ab', mb(m.arrayBuffers), 'peak so far', mb(peak), peakAt);
  phase = p;
}
(async () => {
  mark('start');
  const counting = new HostCounting(quiet, { workerPath: WORKER });
  const result = await importSessionFile(process.argv[2]);
  mark('imported');
  await counting.prefill(() => [result.messages]);
  mark('counted');
  const plan = await planWithSliced('recursive-summarization', result.messages, {}, { ...DEFAULT_PLAN_CONTEXT, tokens: counting.counter });
  mark('planned');
  console.log('maxRSS', mb(process.resourceUsage().maxRSS * 1024), plan.archived.length);
  counting.dispose(); clearInterval(t);
})();

// The scenario of the probe-check tests: a controller over the loopback server, a session that
// establishes facts through real tool calls (an edit approved from the chat, a test command and its
// failure, the user's constraint) and then moves on, so a sliding-window compaction archives them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopbackAnthropic } from '../loopback/anthropic-server';
import type { AgentController } from '../../src/agent/service/controller';
import type { HostSettings } from '../../src/settings/hostSettings';
import { loopbackController } from '../helpers/loopbackController';

export interface ProbeRig {
  server: LoopbackAnthropic;
  baseURL: string;
  workspace: string;
  make(settings?: Partial<HostSettings>): AgentController;
  close(): Promise<void>;
}

export async function probeRig(): Promise<ProbeRig> {
  const server = new LoopbackAnthropic();
  const { baseURL } = await server.start();
  const storage = mkdtempSync(join(tmpdir(), 'sp-probe-store-'));
  const workspace = mkdtempSync(join(tmpdir(), 'sp-probe-ws-'));
  writeFileSync(join(workspace, 'parser.ts'), 'export const limit = 41;\n');
  const made: AgentController[] = [];
  return {
    server,
    baseURL,
    workspace,
    make: (settings) => {
      const c = loopbackController({ workspace, storage, baseURL, settings });
      // Every tool call is approved at once (the approval flow has its own tests).
      c.onDidChangeChat((ch) => {
        if (ch.kind === 'item' && ch.item.kind === 'tool' && ch.item.status === 'awaiting-approval') c.approve(ch.item.id);
      });
      made.push(c);
      return c;
    },
    close: async () => {
      for (const c of made) c.dispose();
      await server.close();
      rmSync(storage, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/** The session: facts first (an edit, a failing test run, a constraint), then small talk that a sliding window keeps. */
export async function establishFacts(c: AgentController, server: LoopbackAnthropic): Promise<void> {
  server.queue
    .toolUse('edit_file', { path: 'parser.ts', old_string: '41', new_string: '42' }, { text: 'Raising the limit.' })
    .text('I changed the limit in parser.ts to 42.');
  await c.send("Raise the parser's limit to 42. Don't touch the vendor folder; use pnpm instead of npm.");
  server.queue
    .toolUse('run_command', { command: 'node -e "console.error(\'Error: limit exceeded at parser.ts:1\'); process.exit(3)"' })
    .text('The check failed with exit code 3: Error: limit exceeded at parser.ts:1. Next I will lower the limit to 40.');
  await c.send('Run the limit check.');
  server.queue.text('The benchmark of the old parser took 1834 ms per run; the new one takes 912 ms per run.');
  await c.send('How fast is the parser now?');
  for (let i = 0; i < 4; i++) {
    server.queue.text(`Noted, item ${i}.`);
    await c.send(`Small talk ${i}.`);
  }
}

// An InspectorService over a fresh on-disk session (the tests' rig): the session holds `messages` (synthetic ones
// left out, as a user's session never stores them), the pipeline shows them as they are.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InspectorService } from '../../src/agent/service/inspectorService';
import {
  CharEstimateTokenizer,
  MemoizedMessageCounter,
  SessionFileStore,
  type CompactionPipeline,
  type Message,
  type MessageTokenCounter,
} from '../../src/core';
import { planContextFor, strategyParamsFor } from '../../src/settings/engineSettings';
import { DEFAULT_HOST_SETTINGS, type HostSettings } from '../../src/settings/hostSettings';

export function inspectorService(
  o: { messages?: readonly Message[]; counter?: MessageTokenCounter; settings?: HostSettings } = {},
): InspectorService {
  const store = new SessionFileStore(join(mkdtempSync(join(tmpdir(), 'sp-insp-')), 'sessions'));
  const session = store.create('s1', 'Inspected');
  const messages = (o.messages ?? []).filter((m) => !m.synthetic);
  if (messages.length > 0) session.append(...messages);
  const counter = o.counter ?? new MemoizedMessageCounter(new CharEstimateTokenizer());
  const settings = o.settings ?? DEFAULT_HOST_SETTINGS;
  const ctx = planContextFor(settings, counter);
  const pipeline = { effectiveMessages: () => session.messages, liveContext: () => ({}) } as unknown as CompactionPipeline;
  return new InspectorService({
    current: () => ({ session, pipeline, ctx }),
    settings: () => settings,
    counter,
    strategyParams: (name) => strategyParamsFor(settings, name, () => {}),
    overheadParts: () => ({ system: 0, tools: 0 }),
  });
}

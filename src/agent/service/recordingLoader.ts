// "Inspect Session File…" without making the host wait: the file is imported streamed (importSessionFile),
// shown at once with estimated counts (4 characters per token, no fitted overhead), counted exactly on the
// host's counting worker, then shown again with the exact counts.
import { CharEstimateTokenizer, importSessionFile, MemoizedMessageCounter, type ImportResult, type Message } from '../../core';
import type { InspectedRecording } from './inspectorService';

export interface RecordingLoaderDeps {
  /** Counts the recording on the worker thread, filling the host's memo, and prepares its counted view (AgentController.countRecording). */
  countRecording(result: ImportResult): Promise<void>;
  /** Shows a recording: first estimated (`estimated` true), then exactly counted. */
  show(recording: InspectedRecording, estimated: boolean): void;
}

/** Every message list of an import the inspector can show (the current context and each compaction's). */
export function messageListsOf(result: ImportResult): Array<readonly Message[]> {
  return [result.messages, ...result.compactions.flatMap((c) => [c.before, c.summary])];
}

/** Import `file` (rejects with an ImportError naming file, line and field), show it estimated, count it, show it exact. */
export async function loadRecording(file: string, deps: RecordingLoaderDeps): Promise<InspectedRecording> {
  const result = await importSessionFile(file);
  deps.show({ source: file, result, counter: new MemoizedMessageCounter(new CharEstimateTokenizer()) }, true);
  await deps.countRecording(result);
  const counted: InspectedRecording = { source: file, result };
  deps.show(counted, false);
  return counted;
}

// Routing of webview intents: an exhaustive map from message type to handler (a message type with
// no handler is a compile error), wrapped once so that a handler that throws or rejects is logged
// and shown to the user, never left as an unhandled rejection. No `vscode` import (unit-tested in
// plain Node); the sink that logs and shows is passed in.
import { errorMessage } from '../core';

/** One handler per message type, each receiving exactly its message's shape. */
export type MessageHandlers<M extends { type: string }> = {
  [K in M['type']]: (msg: Extract<M, { type: K }>) => Promise<void> | void;
};

/** Where a failed handler is reported: the log (with the stack) and the user (one line). */
export interface FailureSink {
  error(message: string): void;
  showError(message: string): void;
}

/**
 * A function that dispatches a message to its handler. The promise it returns always resolves: a
 * failure is reported to `sink` as "<source>: '<type>' failed: …".
 */
export function createRouter<M extends { type: string }>(
  source: string,
  handlers: MessageHandlers<M>,
  sink: FailureSink,
): (msg: M) => Promise<void> {
  return async (msg) => {
    try {
      const handler = handlers[msg.type as M['type']] as (m: M) => Promise<void> | void;
      await handler(msg);
    } catch (e) {
      reportFailure(source, msg.type, e, sink);
    }
  };
}

/** Logs (with the stack) and shows (one line) a failure of `what` from `source`. Never throws. */
export function reportFailure(source: string, what: string, error: unknown, sink: FailureSink): void {
  const detail = error instanceof Error && error.stack ? error.stack : errorMessage(error);
  try {
    sink.error(`${source}: '${what}' failed: ${detail}`);
    sink.showError(`Splitpoint: ${errorMessage(error)}`);
  } catch {
    // The sink itself failed (say, the output channel is already disposed at shutdown): nothing
    // left to report to.
  }
}

// The root of the project's errors. Every error Splitpoint throws on purpose extends SplitpointError
// and carries a message written for the user (what went wrong, where, and what was kept), so a host
// can show `e.message` as it is. `errorMessage` is the one way to read a message off an unknown throw.

/** An error Splitpoint raised on purpose, with a user-facing message. Subclasses name the reason. */
export class SplitpointError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SplitpointError';
  }
}

/** The message of anything thrown: an Error's message, otherwise its string form. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

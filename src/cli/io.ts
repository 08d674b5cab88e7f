// Where the CLI writes and reads: the process in src/cli.ts, buffers in tests.
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readFile: (path: string) => string;
  /** Raw stderr for a progress bar: set only when stderr is a terminal (the text is the CLI's own, never a session's). */
  progress?: (text: string) => void;
}

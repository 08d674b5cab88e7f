// Where the CLI writes and reads: the process in src/cli.ts, buffers in tests.
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readFile: (path: string) => string;
}

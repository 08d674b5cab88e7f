// The import state a SessionFollower keeps between polls, one kind per JSONL format.
//
// INTERIM (step 1): every tracker keeps the parsed lines and runs the whole import over them again for
// each result. The file is not read again, but each result costs a whole import's steps.
import { claudeCodeSteps, slimClaudeCodeLine } from './claudeCode';
import { codexRolloutSteps } from './codex';
import type { JsonLine } from './json';
import { splitpointSteps } from './splitpoint';
import type { ImportSteps } from './steps';
import type { ImportResult, SessionFormat } from './types';

/** The import of the lines fed so far. */
export interface Tracker {
  /** One more complete line, in file order. Throws an ImportError for a line that cannot be read. */
  line(l: JsonLine): void;
  /** The import of the lines fed so far, as steps; the tracker can be fed more lines afterwards. */
  result(): ImportSteps<ImportResult>;
}

export function startTracker(format: SessionFormat, file: string): Tracker {
  return new RebuildTracker(format, file);
}

/** INTERIM: keeps the lines and imports them all again for each result. */
class RebuildTracker implements Tracker {
  private readonly lines: JsonLine[] = [];

  constructor(
    private readonly format: SessionFormat,
    private readonly file: string,
  ) {}

  line(l: JsonLine): void {
    this.lines.push(this.format === 'claude-code-jsonl' ? { line: l.line, value: slimClaudeCodeLine(l.value) } : l);
  }

  result(): ImportSteps<ImportResult> {
    switch (this.format) {
      case 'claude-code-jsonl':
        return claudeCodeSteps(this.lines, this.file);
      case 'codex-rollout-jsonl':
        return codexRolloutSteps(this.lines, this.file);
      default:
        return splitpointSteps(this.lines, this.file);
    }
  }
}

// The import state a SessionFollower keeps between polls, one kind per JSONL format. The lines of the first
// read are imported as a whole file is (in steps); each line appended afterwards is read into the same state,
// and a result is a snapshot of it. A tracker that cannot read an appended line on (line() returns false)
// is dropped: the follower reads the whole file again into a new one.
import { slimClaudeCodeLine } from './claudeCode';
import { ClaudeCodeLive } from './claudeCodeLive';
import { CodexReplay } from './codex';
import type { JsonLine } from './json';
import { SplitpointReader } from './splitpoint';
import type { ImportSteps } from './steps';
import type { ImportResult, SessionFormat } from './types';

/** The import of the lines fed so far. */
export interface Tracker {
  /**
   * One more complete line, in file order. False: the tracker cannot go on from it (the caller imports the
   * whole file again). Throws an ImportError for a line that cannot be read.
   */
  line(l: JsonLine): boolean;
  /** The import of the lines fed so far, as steps; the tracker can be fed more lines afterwards. */
  result(): ImportSteps<ImportResult>;
}

export function startTracker(format: SessionFormat, file: string): Tracker {
  switch (format) {
    case 'claude-code-jsonl':
      return new ClaudeCodeTracker(file);
    case 'codex-rollout-jsonl':
      return new CodexTracker(file);
    default:
      return new SplitpointTracker(file);
  }
}

/** Claude Code: the first read's lines are imported together (the branch is a whole-file question), then followed. */
class ClaudeCodeTracker implements Tracker {
  private lines: JsonLine[] | undefined = [];
  private live: ClaudeCodeLive | undefined;

  constructor(private readonly file: string) {}

  line(l: JsonLine): boolean {
    const slim = { line: l.line, value: slimClaudeCodeLine(l.value) };
    if (this.lines) {
      this.lines.push(slim);
      return true;
    }
    // No live import (the first one failed): the whole file again.
    return this.live?.line(slim) ?? false;
  }

  *result(): ImportSteps<ImportResult> {
    if (this.lines) {
      const lines = this.lines;
      this.lines = undefined;
      this.live = yield* ClaudeCodeLive.start(lines, this.file);
    }
    if (!this.live) throw new Error('ClaudeCodeTracker: the first import failed');
    return yield* this.live.result();
  }
}

/** Codex: the replay is line by line; a result is a snapshot of it. */
class CodexTracker implements Tracker {
  private readonly replay: CodexReplay;

  constructor(file: string) {
    this.replay = new CodexReplay(file);
  }

  line(l: JsonLine): boolean {
    this.replay.line(l);
    return true;
  }

  // eslint-disable-next-line require-yield
  *result(): ImportSteps<ImportResult> {
    return this.replay.snapshot();
  }
}

/** Splitpoint JSONL: read line by line; a result is a snapshot. */
class SplitpointTracker implements Tracker {
  private readonly reader: SplitpointReader;

  constructor(file: string) {
    this.reader = new SplitpointReader(file);
  }

  line(l: JsonLine): boolean {
    this.reader.line(l);
    return true;
  }

  // eslint-disable-next-line require-yield
  *result(): ImportSteps<ImportResult> {
    return this.reader.result();
  }
}

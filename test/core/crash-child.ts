// Child process for the crash test: runs a compaction on a session folder and kills itself with
// SIGKILL at a chosen point, as a crash or a power cut would. Not a test file itself.
//   node --import tsx test/core/crash-child.ts DIR POINT
// POINT: after-transcript | mid-transcript | mid-session-rewrite | after-commit
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CompactionPipeline } from '../../src/core/pipeline/pipeline';
import { DEFAULT_PLAN_CONTEXT } from '../../src/core/pipeline/plan';
import { SessionFileStore } from '../../src/core/session/session';
import { CharEstimateTokenizer, MemoizedMessageCounter } from '../../src/core/counting/tokens';
import { writeFileAtomic } from '../../src/core/base/fsAtomic';
import { TranscriptStore } from '../../src/core/transcripts/transcripts';
import { neverTrigger } from '../../src/core/pipeline/triggers';

const [dir, point] = process.argv.slice(2);
const die = () => process.kill(process.pid, 'SIGKILL');

class CrashingStore extends SessionFileStore {
  override rewrite(
    id: string,
    messages: Parameters<SessionFileStore['rewrite']>[1],
    record?: Parameters<SessionFileStore['rewrite']>[2],
  ): void {
    if (point === 'mid-session-rewrite') {
      // Start writing the new file the way writeFileAtomic does (temp file), then die half-way.
      const text = messages.map((m) => JSON.stringify(m) + '\n').join('');
      const fd = openSync(join(this.dir, `.${id}.jsonl.${process.pid}.${Date.now()}-0.tmp`), 'w');
      writeSync(fd, text.slice(0, Math.floor(text.length / 2)));
      closeSync(fd);
      die();
    }
    super.rewrite(id, messages, record);
    // The swap is done; the meta file (written next) still has no record of this compaction.
    if (point === 'after-commit') die();
  }
}

const store = new CrashingStore(join(dir, 'sessions'));
const { log } = store.load('s');
const transcripts = new TranscriptStore({
  dir: join(dir, '.transcripts'),
  write: (path, text) => {
    if (point === 'mid-transcript') {
      // The transcript's temp file half-written, as writeFileAtomic names it, then death.
      mkdirSync(dirname(path), { recursive: true });
      const fd = openSync(join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}-0.tmp`), 'wx');
      writeSync(fd, text.slice(0, Math.floor(text.length / 2)));
      closeSync(fd);
      die();
    }
    writeFileAtomic(path, text);
    if (point === 'after-transcript') die();
  },
});
const pipeline = new CompactionPipeline(
  { session: log, transcripts, ctx: { ...DEFAULT_PLAN_CONTEXT, tokens: new MemoizedMessageCounter(new CharEstimateTokenizer()) } },
  {
    microCompact: { enabled: true, keepRecent: 3, minChars: 100 },
    autoCompact: { enabled: false, strategy: 'sliding-window', params: {}, trigger: neverTrigger },
  },
);
void pipeline.compact({ strategy: 'sliding-window', params: { maxEvents: 4 }, trigger: 'manual' }).then(() => process.exit(0));

// The session log: the agent's history, versioned. Appends bump the version; a compaction commits
// by compare-and-swap against the snapshot it planned from. If only appends happened meanwhile (the
// user kept typing during a slow summary) they are kept after the compacted history; any other
// concurrent rewrite makes the commit fail. Persisted as JSONL, rewritten atomically; a rewrite's
// compaction record is written in the same file (its first line), so a crash between the swap and the
// meta write cannot lose it.
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '../conversation/conversation';
import { errorMessage, SplitpointError } from '../base/errors';
import { Emitter } from '../base/events';
import { cleanStaleTempFiles, nodeStorageFs, writeAll, writeFileAtomic, type StorageFs } from '../base/fsAtomic';
import { lockSession, type SessionLock } from './sessionLock';
import { compactionRecordProblem, parseSessionMeta } from './sessionMeta';
import { parseSessionLines, SESSION_COMMIT_KEY, sessionFileText } from './sessionFile';
import { quarantineFile, repairToolPairs } from './sessionRepair';
import type { CompactionRecord, SessionLoadError, SessionMeta } from './sessionTypes';

export type { CompactionRecord, SessionLoadError, SessionMeta } from './sessionTypes';

export interface SessionSnapshot {
  version: number;
  /** Version of the last rewrite (compaction/undo); appends do not change it. */
  rewriteVersion: number;
  messages: readonly Message[];
}

export type CommitResult =
  | { ok: true; messages: readonly Message[]; /** messages appended after the snapshot and kept */ carriedOver: number }
  | { ok: false; reason: string };

export type SessionChange = { kind: 'append'; messages: readonly Message[] } | { kind: 'rewrite' } | { kind: 'meta' };

/** Where a session lives on disk; the in-memory log calls it on every change. */
export interface SessionPersistence {
  /** Persist appended messages; throws (and leaves the store as it was) if they could not be written. */
  append(sessionId: string, messages: readonly Message[]): void;
  /** Replace the history; `record` (the compaction that made it) is committed in the same atomic write. */
  rewrite(sessionId: string, messages: readonly Message[], record?: CompactionRecord): void;
  writeMeta(meta: SessionMeta): void;
}

export class SessionConflictError extends SplitpointError {
  constructor(reason: string) {
    super(`Compaction was not applied: ${reason}. The history is unchanged.`);
    this.name = 'SessionConflictError';
  }
}

export class SessionLog {
  private _messages: Message[];
  private _version = 0;
  private _rewriteVersion = 0;
  private readonly changed = new Emitter<SessionChange>();
  readonly onDidChange = this.changed.event;
  meta: SessionMeta;

  constructor(
    meta: SessionMeta,
    messages: readonly Message[] = [],
    private readonly persistence?: SessionPersistence,
  ) {
    this.meta = meta;
    this._messages = [...messages];
  }

  get id(): string {
    return this.meta.id;
  }
  get version(): number {
    return this._version;
  }
  get messages(): readonly Message[] {
    return this._messages;
  }
  /** Changes only when the history is rewritten (compaction, undo), not on appends. */
  get rewriteVersion(): number {
    return this._rewriteVersion;
  }

  snapshot(): SessionSnapshot {
    return { version: this._version, rewriteVersion: this._rewriteVersion, messages: [...this._messages] };
  }

  /** Append messages: persisted first, then visible (a persistence error leaves them out of memory). */
  append(...messages: Message[]): void {
    this.appendAll(messages);
  }

  /** append() of a list of any length (a long list spread into append's arguments would overflow the stack). */
  appendAll(messages: readonly Message[]): void {
    if (messages.length === 0) return;
    this.persistence?.append(this.id, messages);
    for (const m of messages) this._messages.push(m);
    this._version++;
    this.meta.updatedAt = Date.now();
    this.changed.fire({ kind: 'append', messages });
  }

  /**
   * Replace the history planned from `snapshot` with `next`. Messages appended since the snapshot are
   * carried over after `next`; a rewrite since the snapshot is a conflict and nothing changes.
   */
  commitRewrite(snapshot: SessionSnapshot, next: readonly Message[], record?: CompactionRecord): CommitResult {
    if (snapshot.rewriteVersion !== this._rewriteVersion) {
      return { ok: false, reason: 'the history was rewritten by another compaction or an undo while this one was prepared' };
    }
    const carried = this._messages.slice(snapshot.messages.length);
    // Appends only ever add to the end, so the prefix must be exactly what was planned from.
    for (let i = 0; i < snapshot.messages.length; i++) {
      if (this._messages[i] !== snapshot.messages[i])
        return { ok: false, reason: `message ${i} changed while the compaction was prepared` };
    }
    const messages = [...next, ...carried];
    this.persistence?.rewrite(this.id, messages, record);
    this._messages = messages;
    this._version++;
    this._rewriteVersion = this._version;
    if (record) this.addCompaction(record);
    this.changed.fire({ kind: 'rewrite' });
    return { ok: true, messages, carriedOver: carried.length };
  }

  addCompaction(record: CompactionRecord): void {
    this.meta.compactions.push(record);
    this.meta.updatedAt = Date.now();
    this.persistence?.writeMeta(this.meta);
    this.changed.fire({ kind: 'meta' });
  }

  /** Persist the meta again after a record was completed in place (e.g. its tokensAfter, known only after the swap). */
  saveMeta(): void {
    this.meta.updatedAt = Date.now();
    this.persistence?.writeMeta(this.meta);
    this.changed.fire({ kind: 'meta' });
  }

  /** Pinned message ids (persisted with the meta). */
  pinnedIds(): ReadonlySet<string> {
    return new Set(this.meta.pinned ?? []);
  }

  /** Replace the pinned ids and persist them; false (nothing written) when the set is unchanged. */
  setPinned(ids: readonly string[]): boolean {
    const next = [...new Set(ids)];
    const prev = this.meta.pinned ?? [];
    if (next.length === prev.length && next.every((id, i) => id === prev[i])) return false;
    this.meta.pinned = next;
    this.meta.updatedAt = Date.now();
    this.persistence?.writeMeta(this.meta);
    this.changed.fire({ kind: 'meta' });
    return true;
  }

  setTitle(title: string): void {
    this.meta.title = title;
    this.persistence?.writeMeta(this.meta);
    this.changed.fire({ kind: 'meta' });
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export function newSessionMeta(id: string, title = 'New chat', now = Date.now()): SessionMeta {
  return { id, title, createdAt: now, updatedAt: now, compactions: [] };
}

export interface SessionLoadResult {
  log: SessionLog;
  /** Unreadable lines (file and line), skipped. */
  errors: SessionLoadError[];
  /** Repairs the user must be told about: quarantine copy, dropped tool halves, meta fields, a recovered record. */
  notices: string[];
  /** Where the raw file was copied before anything could rewrite it away (when lines were skipped or repaired). */
  quarantinePath?: string;
}

export class SessionWriteError extends SplitpointError {
  constructor(
    readonly file: string,
    cause: unknown,
    what: string,
    consequence: string,
  ) {
    super(`Could not save ${what} to ${file}: ${errorMessage(cause)}. ${consequence}`);
    this.name = 'SessionWriteError';
  }
}

export interface SessionFileStoreOptions {
  /** Injected for tests (a full disk, a spy); node:fs by default. */
  fs?: StorageFs;
  now?: () => number;
}

/**
 * Sessions as files in one folder: `<id>.jsonl` (one message per line; appended to, rewritten
 * atomically on compaction) and `<id>.meta.json` (title, compactions).
 */
export class SessionFileStore implements SessionPersistence {
  private readonly fs: StorageFs;
  private readonly now: () => number;
  /** Sessions whose skipped bytes could not be quarantined: a rewrite would destroy them, so it is refused. */
  private readonly unquarantined = new Map<string, string>();

  constructor(
    readonly dir: string,
    options: SessionFileStoreOptions = {},
  ) {
    this.fs = options.fs ?? nodeStorageFs;
    this.now = options.now ?? Date.now;
  }

  messagesPath(id: string): string {
    return join(this.dir, `${safeId(id)}.jsonl`);
  }
  private metaPath(id: string): string {
    return join(this.dir, `${safeId(id)}.meta.json`);
  }

  /** Append whole lines; on a failed write the file is cut back to where it was (no partial line stays). */
  append(sessionId: string, messages: readonly Message[]): void {
    const file = this.messagesPath(sessionId);
    const fs = this.fs;
    let fd: number | undefined;
    let start = 0;
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      fd = fs.openSync(file, 'a', 0o600);
      start = fs.fstatSync(fd).size;
      writeAll(fs, fd, messages.map((m) => JSON.stringify(m) + '\n').join(''));
      fs.closeSync(fd);
    } catch (e) {
      let undo = '';
      if (fd !== undefined) {
        try {
          fs.ftruncateSync(fd, start);
        } catch (t) {
          undo = ` (and cutting the partial line back failed: ${errorMessage(t)})`;
        }
        try {
          fs.closeSync(fd);
        } catch {
          // The descriptor is unusable; the write error below is what matters.
        }
      }
      throw new SessionWriteError(file, `${errorMessage(e)}${undo}`, 'the message', 'It was not added to the history.');
    }
  }

  rewrite(sessionId: string, messages: readonly Message[], record?: CompactionRecord): void {
    const file = this.messagesPath(sessionId);
    const kept = this.unquarantined.get(sessionId);
    if (kept !== undefined)
      throw new SessionWriteError(
        file,
        `the skipped lines could not be copied aside (${kept})`,
        'the rewritten history',
        'Nothing was rewritten, so the bytes no transcript holds are kept.',
      );
    writeFileAtomic(file, sessionFileText(sessionId, messages, record), this.fs);
  }

  writeMeta(meta: SessionMeta, durable = true): void {
    writeFileAtomic(this.metaPath(meta.id), JSON.stringify(meta, null, 2), this.fs, { durable });
  }

  /** The exclusive lock of a session (throws SessionLockedError if another window holds it). */
  lock(id: string, onCompromised: (message: string) => void): SessionLock {
    this.fs.mkdirSync(this.dir, { recursive: true });
    return lockSession(this.messagesPath(id), onCompromised);
  }

  /** Session metas (validated; a wrong field gets its default), most recently updated first. */
  list(): SessionMeta[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const metas: SessionMeta[] = [];
    for (const n of names) {
      if (!n.endsWith('.meta.json')) continue;
      try {
        metas.push(this.readMeta(join(this.dir, n), n.slice(0, -'.meta.json'.length)).meta);
      } catch {
        // Unreadable (not wrong-shaped: that is repaired): the session is left out; its messages stay on disk.
      }
    }
    return metas.sort((a, b) => b.updatedAt - a.updatedAt);
  }

  private readMeta(path: string, stem: string): { meta: SessionMeta; warnings: string[] } {
    const text = readFileSync(path, 'utf8');
    let id = stem;
    try {
      const raw = (JSON.parse(text) as { id?: unknown }).id;
      if (typeof raw === 'string' && safeId(raw) === stem) id = raw;
    } catch {
      // parseSessionMeta reports it.
    }
    return parseSessionMeta(text, path, id, this.now());
  }

  /**
   * Load a session. Unreadable lines are reported (file and line) and skipped; if any were (or a tool
   * exchange lost a half), the raw file is first copied aside and the history repaired to a valid one.
   */
  load(id: string): SessionLoadResult {
    cleanStaleTempFiles(this.dir);
    const file = this.messagesPath(id);
    const notices: string[] = [];
    let meta: SessionMeta;
    try {
      const read = this.readMeta(this.metaPath(id), safeId(id));
      meta = { ...read.meta, id };
      for (const w of read.warnings) notices.push(w);
    } catch {
      meta = newSessionMeta(id);
    }
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const parsed = parseSessionLines(text, file);
    const repair = repairToolPairs(parsed.messages);
    let quarantinePath: string | undefined;
    this.unquarantined.delete(id);
    if (parsed.errors.length > 0 || repair.changes.length > 0) {
      try {
        quarantinePath = quarantineFile(file, [...parsed.corruptLines, ...repair.changes], this.now(), (a, b) =>
          this.fs.copyFileSync(a, b),
        );
        const what = parsed.errors.length > 0 ? `${parsed.errors.length} unreadable line(s)` : 'a tool exchange with a missing half';
        notices.push(`The session file had ${what}; the original file was kept as ${quarantinePath}.`);
      } catch (e) {
        this.unquarantined.set(id, errorMessage(e));
        notices.push(`The session file had unreadable lines and could not be copied aside (${errorMessage(e)}); it will not be rewritten.`);
      }
      for (const c of repair.changes) notices.push(`Repaired the history: ${c}.`);
    }
    // A crash mid-append can leave a partial last line: terminate it so the next append starts a
    // line of its own (the partial line is reported above; nothing after it is swallowed).
    if (text.length > 0 && !text.endsWith('\n')) appendFileSync(file, '\n');
    this.recoverCommit(meta, parsed.commit, file, notices);
    return { log: new SessionLog(meta, repair.messages, this), errors: parsed.errors, notices, quarantinePath };
  }

  /** The file's commit record is missing from the meta (a crash after the swap): add it back. */
  private recoverCommit(meta: SessionMeta, commit: unknown, file: string, notices: string[]): void {
    if (commit === undefined) return;
    const problem = compactionRecordProblem(commit);
    if (problem) {
      notices.push(`${file}:1:${SESSION_COMMIT_KEY}${problem.field}: ${problem.message}; the record was ignored`);
      return;
    }
    const record = commit as CompactionRecord;
    if (meta.compactions.some((c) => c.id === record.id)) return;
    meta.compactions.push(record);
    try {
      this.writeMeta(meta);
    } catch (e) {
      notices.push(`Could not save the recovered compaction record: ${errorMessage(e)}.`);
    }
    notices.push(
      `Recovered the record of compaction ${record.id} (${record.strategy}) from ${file}: the window closed before it was saved.`,
    );
  }

  create(id: string, title?: string): SessionLog {
    cleanStaleTempFiles(this.dir);
    const meta = newSessionMeta(id, title, this.now());
    // A new session holds nothing to lose: its meta is not fsynced (an fsync on activation held the extension
    // host 20-40 ms); a lost meta is rebuilt by load() from the
    // messages file, and the first prompt's title (setTitle) writes it durably.
    this.writeMeta(meta, false);
    return new SessionLog(meta, [], this);
  }
}

function safeId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80) || 'session';
}

// The session log: the agent's history, versioned. Appends bump the version; a compaction commits
// by compare-and-swap against the snapshot it planned from. If only appends happened meanwhile (the
// user kept typing during a slow summary) they are kept after the compacted history; any other
// concurrent rewrite makes the commit fail. Persisted as JSONL, rewritten atomically.
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from './conversation';
import { errorMessage, SplitpointError } from './errors';
import { Emitter } from './events';
import { writeFileAtomic } from './fsAtomic';
import { messageProblem } from './messageShape';

export interface CompactionRecord {
  id: string;
  at: number;
  strategy: string;
  params: Record<string, number>;
  /** What started it: the budget trigger, the user, the model's compact tool, the inspector, undo. */
  trigger: 'auto' | 'manual' | 'tool' | 'inspector' | 'undo';
  /** Tokens of the next request before and after (micro-compacted, calibrated, with system and tools). */
  tokensBefore: number;
  tokensAfter: number;
  archivedCount: number;
  truncatedCount: number;
  transcriptPath: string;
  /** Id of the summary or placeholder message written, if any. */
  syntheticId: string | null;
  tailStartId: string | null;
  /** Length of the history right after this rewrite (messages after it were added later). */
  resultLength: number;
  focus?: string;
}

export interface SessionMeta {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  compactions: CompactionRecord[];
}

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
  append(sessionId: string, messages: readonly Message[]): void;
  rewrite(sessionId: string, messages: readonly Message[]): void;
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

  /** Append messages: persisted first, then visible. */
  append(...messages: Message[]): void {
    if (messages.length === 0) return;
    this.persistence?.append(this.id, messages);
    this._messages.push(...messages);
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
    this.persistence?.rewrite(this.id, messages);
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

export interface SessionLoadError {
  file: string;
  line: number;
  message: string;
}

/**
 * Sessions as files in one folder: `<id>.jsonl` (one message per line; appended to, rewritten
 * atomically on compaction) and `<id>.meta.json` (title, compactions).
 */
export class SessionFileStore implements SessionPersistence {
  constructor(readonly dir: string) {}

  private messagesPath(id: string): string {
    return join(this.dir, `${safeId(id)}.jsonl`);
  }
  private metaPath(id: string): string {
    return join(this.dir, `${safeId(id)}.meta.json`);
  }

  append(sessionId: string, messages: readonly Message[]): void {
    mkdirSync(this.dir, { recursive: true });
    appendFileSync(this.messagesPath(sessionId), messages.map((m) => JSON.stringify(m) + '\n').join(''));
  }

  rewrite(sessionId: string, messages: readonly Message[]): void {
    writeFileAtomic(this.messagesPath(sessionId), messages.map((m) => JSON.stringify(m) + '\n').join(''));
  }

  writeMeta(meta: SessionMeta): void {
    writeFileAtomic(this.metaPath(meta.id), JSON.stringify(meta, null, 2));
  }

  /** Session metas, most recently updated first. */
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
        metas.push(JSON.parse(readFileSync(join(this.dir, n), 'utf8')) as SessionMeta);
      } catch {
        // An unreadable meta file hides that session from the list; its messages stay on disk.
      }
    }
    return metas.sort((a, b) => b.updatedAt - a.updatedAt);
  }

  /** Load a session; unreadable lines are reported (file and line) and skipped. */
  load(id: string): { log: SessionLog; errors: SessionLoadError[] } {
    const file = this.messagesPath(id);
    let meta: SessionMeta;
    try {
      meta = JSON.parse(readFileSync(this.metaPath(id), 'utf8')) as SessionMeta;
    } catch {
      meta = newSessionMeta(id);
    }
    const errors: SessionLoadError[] = [];
    const messages: Message[] = [];
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    // A crash mid-append can leave a partial last line: terminate it so the next append starts a
    // line of its own (the partial line is reported below; nothing after it is swallowed).
    if (text.length > 0 && !text.endsWith('\n')) appendFileSync(file, '\n');
    text.split('\n').forEach((raw, i) => {
      if (raw.trim() === '') return;
      try {
        const value = JSON.parse(raw) as unknown;
        const problem = messageProblem(value);
        if (problem) errors.push({ file, line: i + 1, message: problem });
        else messages.push(value as Message);
      } catch (e) {
        errors.push({ file, line: i + 1, message: `invalid JSON: ${errorMessage(e)}` });
      }
    });
    return { log: new SessionLog(meta, messages, this), errors };
  }

  create(id: string, title?: string): SessionLog {
    const meta = newSessionMeta(id, title);
    this.writeMeta(meta);
    return new SessionLog(meta, [], this);
  }
}

function safeId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80) || 'session';
}

// Reviewing what the agent does to files, outside the chat card: the pending proposals of
// edit_file / write_file with their full content (the extension shows them in VS Code's diff
// editor and approves them from there), and file checkpoints (before a prompt's turn first changes
// the workspace — the first approved change, whatever the tool — the workspace is snapshotted; see
// checkpoints/checkpointStore.ts). Plain Node, no vscode: the controller wires it between the
// approval broker and the agent, and the extension reads it.
import { rmSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { Emitter, errorMessage, type Disposable } from '../../core';
import type { AgentEvent } from '../loop/agentEvents';
import { CheckpointStore, type Checkpoint, type CheckpointLimits, type RestorePlan } from '../checkpoints/checkpointStore';
import { workspaceWriter } from '../checkpoints/workspaceWriter';
import type { ControllerLog } from './controllerTypes';
import { transcriptDirFor } from '../../settings/engineSettings';
import type { HostSettings } from '../../settings/hostSettings';
import { shippedDefault } from '../../settings/schema';
import type { SessionScope } from './sessionScope';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from '../tools';

/** A pending edit_file / write_file: what the file is now and what it would become. */
export interface Proposal {
  toolUseId: string;
  tool: string;
  title: string;
  /** Relative to the workspace, '/'-separated. */
  path: string;
  absPath: string;
  /** null: the file does not exist yet. */
  original: string | null;
  proposed: string;
}

export interface FileReviewDeps {
  storageDir: string;
  workspaceRoot: string | undefined;
  log: ControllerLog;
}

/** What the review reads of its controller. */
export interface FileReviewHost {
  settings: () => HostSettings;
  current: () => SessionScope;
  busy: () => boolean;
}

export class FileReview implements Disposable {
  private readonly pending = new Map<string, Proposal>();
  private readonly stores = new Map<string, CheckpointStore>();
  /** The session message id of the prompt whose turn runs, per scope. */
  private readonly prompts = new WeakMap<SessionScope, string>();
  /** Prompts whose checkpoint failed (the chat was told once). */
  private readonly failed = new Set<string>();
  private readonly proposalsChanged = new Emitter<void>();
  private readonly checkpointsChanged = new Emitter<void>();
  /** A proposal was added or settled. */
  readonly onDidChangeProposals = this.proposalsChanged.event;
  /** A checkpoint was taken, dropped or restored. */
  readonly onDidChangeCheckpoints = this.checkpointsChanged.event;

  private readonly deps: FileReviewDeps & FileReviewHost;

  constructor(deps: FileReviewDeps, host: FileReviewHost) {
    this.deps = { storageDir: deps.storageDir, workspaceRoot: deps.workspaceRoot, log: deps.log, ...host };
    this.pruneOrphans();
  }

  /** The approval gate and event sink an agent of `scope` gets: proposals are tracked, checkpoints taken. */
  wire(
    scope: SessionScope,
    inner: ApprovalGate,
    onEvent: (e: AgentEvent) => void,
  ): { approvals: ApprovalGate; onEvent: (e: AgentEvent) => void } {
    return {
      approvals: { request: (req, signal) => this.request(scope, inner, req, signal) },
      onEvent: (e) => {
        if (e.type === 'turn-started' && e.promptMessageId) this.prompts.set(scope, e.promptMessageId);
        onEvent(e);
      },
    };
  }

  proposal(toolUseId: string): Proposal | undefined {
    return this.pending.get(toolUseId);
  }

  proposals(): Proposal[] {
    return [...this.pending.values()];
  }

  /** Checkpoints of the current session, oldest first. */
  checkpoints(): Checkpoint[] {
    return this.store(this.deps.current())?.list() ?? [];
  }

  /** What restoring the files to before prompt `promptId` would change. */
  planRestore(promptId: string): Promise<RestorePlan> {
    return this.requiredStore().plan(promptId);
  }

  /** A file's content at `promptId`'s checkpoint (null: it did not exist). */
  contentAt(promptId: string, path: string): Promise<Buffer | null> {
    return this.requiredStore().contentAt(promptId, path);
  }

  /** Restore the files of a previewed plan; the chat says what changed. */
  async restore(plan: RestorePlan): Promise<string[]> {
    if (this.deps.busy()) throw new Error('Stop the agent before restoring files.');
    const scope = this.deps.current();
    const done = await this.requiredStore().restore(plan, workspaceWriter(this.deps.workspaceRoot!));
    const n = done.length;
    scope.chat.notice(
      `Restored ${n} file${n === 1 ? '' : 's'} to before the prompt: ${done.slice(0, 10).join(', ')}${n > 10 ? ', …' : ''}.`,
    );
    this.checkpointsChanged.fire();
    return done;
  }

  /** Remove the checkpoints of sessions whose files are gone (at start; sessions are deleted outside a running window). */
  pruneOrphans(): void {
    const root = join(this.deps.storageDir, 'checkpoints');
    let names: string[];
    let sessions: string[];
    try {
      names = readdirSync(root);
      sessions = readdirSync(join(this.deps.storageDir, 'sessions'));
    } catch {
      return;
    }
    const live = new Set(sessions.map((n) => n.replace(/\.(jsonl|meta\.json)$/, '')).map(safeName));
    for (const name of names) if (!live.has(name)) rmSync(join(root, name), { recursive: true, force: true });
  }

  /** Delete a session's checkpoints (the session is being deleted). */
  async deleteSession(sessionId: string): Promise<void> {
    const store = this.stores.get(sessionId);
    this.stores.delete(sessionId);
    if (store) await store.deleteAll();
    else rmSync(join(this.deps.storageDir, 'checkpoints', safeName(sessionId)), { recursive: true, force: true });
  }

  private async request(scope: SessionScope, inner: ApprovalGate, req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    const proposal =
      req.proposal && req.diff
        ? { ...req.proposal, toolUseId: req.toolUseId, tool: req.tool, title: req.title, path: req.diff.path }
        : undefined;
    if (proposal) {
      this.pending.set(req.toolUseId, proposal);
      this.proposalsChanged.fire();
    }
    try {
      const decision = await inner.request(req, signal);
      if (decision.approved && !signal.aborted) await this.checkpoint(scope);
      return decision;
    } finally {
      if (proposal && this.pending.delete(req.toolUseId)) this.proposalsChanged.fire();
    }
  }

  /** Before the first approved change of a turn: snapshot the workspace for its prompt. Never blocks the change. */
  private async checkpoint(scope: SessionScope): Promise<void> {
    const promptId = this.prompts.get(scope);
    if (!promptId || this.failed.has(promptId)) return;
    const started = Date.now();
    try {
      const store = this.store(scope);
      if (!store || store.forPrompt(promptId)) return;
      await store.ensure(promptId);
      this.deps.log.info(`File checkpoint for ${promptId} in ${Date.now() - started} ms.`);
      this.markPrompts(scope, store);
      this.checkpointsChanged.fire();
    } catch (e) {
      // Said once per prompt; the approved change is never held back by a checkpoint.
      this.failed.add(promptId);
      scope.chat.notice(`No file checkpoint was taken for this prompt (${errorMessage(e)}); the change goes ahead without one.`);
    }
  }

  /** The user items of the chat say which prompts can be restored. */
  private markPrompts(scope: SessionScope, store: CheckpointStore): void {
    const ids = new Set(store.list().map((c) => c.promptId));
    for (const item of scope.chatLog.all()) {
      if (item.kind !== 'user' || !item.messageId) continue;
      const has = ids.has(item.messageId);
      if (has !== Boolean(item.checkpoint)) scope.chatLog.update(item.id, 'user', { checkpoint: has });
    }
  }

  private requiredStore(): CheckpointStore {
    const store = this.store(this.deps.current());
    if (!store) throw new Error('File checkpoints need a workspace folder and are turned off (splitpoint.checkpoints.enabled).');
    return store;
  }

  private store(scope: SessionScope): CheckpointStore | undefined {
    const root = this.deps.workspaceRoot;
    const settings = this.deps.settings().checkpoints;
    if (!root || settings?.enabled === false) return undefined;
    const id = scope.session.id;
    let store = this.stores.get(id);
    if (!store) {
      store = new CheckpointStore({
        dir: join(this.deps.storageDir, 'checkpoints', safeName(id)),
        workspaceRoot: root,
        excludes: this.excludes(root),
      });
      this.stores.set(id, store);
    }
    store.limits = limitsFrom(settings);
    return store;
  }

  private excludes(root: string): string[] {
    const rel = relative(root, transcriptDirFor(this.deps.settings(), root, this.deps.storageDir));
    return rel && !rel.startsWith('..') && !isAbsolute(rel) ? [`/${rel.split(sep).join('/')}/`] : [];
  }

  dispose(): void {
    this.proposalsChanged.dispose();
    this.checkpointsChanged.dispose();
  }
}

function limitsFrom(s: HostSettings['checkpoints']): CheckpointLimits {
  return {
    maxCount: s?.maxCount ?? shippedDefault('checkpoints.maxCount'),
    maxFileBytes: (s?.maxFileKB ?? shippedDefault('checkpoints.maxFileSizeKB')) * 1024,
    maxStorageBytes: (s?.maxStorageMB ?? shippedDefault('checkpoints.maxStorageMB')) * 1024 * 1024,
  };
}

function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_');
}

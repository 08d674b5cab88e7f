// A stand-in for the `vscode` module, enough to require an extension bundle and run activate()
// outside VS Code: the classes and enums activation code constructs for real (EventEmitter,
// Disposable, Uri, ThemeColor, …), configuration that answers with the defaults package.json
// contributes, and for everything else a recursive no-op (any property is a callable that returns
// another no-op; never a thenable).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type Listener<T> = (e: T) => unknown;

function noop(path: string): unknown {
  const cache = new Map<PropertyKey, unknown>();
  const target = function () {} as unknown as Record<PropertyKey, unknown>;
  return new Proxy(target, {
    get(_t, prop) {
      if (prop === 'then') return undefined;
      if (prop === Symbol.toPrimitive) return () => `[vscode stub ${path}]`;
      if (prop === Symbol.iterator) return function* () {};
      if (prop === 'toString' || prop === 'toJSON') return () => `[vscode stub ${path}]`;
      if (!cache.has(prop)) cache.set(prop, noop(`${path}.${String(prop)}`));
      return cache.get(prop);
    },
    set(_t, prop, value) {
      cache.set(prop, value);
      return true;
    },
    apply() {
      return noop(`${path}()`);
    },
    construct() {
      return noop(`new ${path}`) as object;
    },
  });
}

class Disposable {
  static from(...items: Array<{ dispose(): unknown }>): Disposable {
    return new Disposable(() => items.forEach((d) => d.dispose()));
  }
  constructor(private readonly fn: () => unknown = () => undefined) {}
  dispose(): void {
    this.fn();
  }
}

class EventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  readonly event = (listener: Listener<T>, thisArg?: unknown, disposables?: Disposable[]) => {
    const bound: Listener<T> = (e) => listener.call(thisArg, e);
    this.listeners.add(bound);
    const d = new Disposable(() => this.listeners.delete(bound));
    disposables?.push(d);
    return d;
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

const event = () => new EventEmitter<unknown>().event;

class Uri {
  static file(path: string): Uri {
    return new Uri('file', '', path, '', '');
  }
  static parse(value: string): Uri {
    const u = new URL(value);
    return new Uri(
      u.protocol.replace(/:$/, ''),
      u.host,
      decodeURIComponent(u.pathname),
      u.search.replace(/^\?/, ''),
      u.hash.replace(/^#/, ''),
    );
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return base.with({ path: join(base.path, ...parts) });
  }
  static from(c: { scheme: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme, c.authority ?? '', c.path ?? '', c.query ?? '', c.fragment ?? '');
  }
  constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}
  get fsPath(): string {
    return this.path;
  }
  with(c: Partial<{ scheme: string; authority: string; path: string; query: string; fragment: string }>): Uri {
    return new Uri(
      c.scheme ?? this.scheme,
      c.authority ?? this.authority,
      c.path ?? this.path,
      c.query ?? this.query,
      c.fragment ?? this.fragment,
    );
  }
  toString(): string {
    return `${this.scheme}://${this.authority}${this.path}${this.query ? `?${this.query}` : ''}${this.fragment ? `#${this.fragment}` : ''}`;
  }
  toJSON(): unknown {
    return { scheme: this.scheme, path: this.path };
  }
}

class ThemeColor {
  constructor(readonly id: string) {}
}
class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}
class MarkdownString {
  constructor(
    public value = '',
    public supportThemeIcons = false,
  ) {}
  appendText(s: string): this {
    this.value += s;
    return this;
  }
  appendMarkdown(s: string): this {
    this.value += s;
    return this;
  }
}
class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  readonly token = { isCancellationRequested: false, onCancellationRequested: this.emitter.event };
  cancel(): void {
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

/** Defaults of every setting package.json contributes, by full key. */
function contributedDefaults(repo: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  try {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { contributes?: { configuration?: unknown } };
    const conf = pkg.contributes?.configuration;
    const sections = (Array.isArray(conf) ? conf : conf ? [conf] : []) as Array<{ properties?: Record<string, { default?: unknown }> }>;
    for (const s of sections) for (const [key, spec] of Object.entries(s.properties ?? {})) out.set(key, spec.default);
  } catch {
    // No package.json: every setting answers with the caller's default.
  }
  return out;
}

function memento() {
  const data = new Map<string, unknown>();
  return {
    get: (key: string, def?: unknown) => (data.has(key) ? data.get(key) : def),
    update: async (key: string, value: unknown) => void data.set(key, value),
    keys: () => [...data.keys()],
    setKeysForSync: () => undefined,
  };
}

const disposable = () => new Disposable();

/** The `vscode` module for a bundle under the bench: settings answer package.json's contributed defaults; the rest are inert stubs. */
export function createVscodeStub(repo: string, workspace: string): Record<string, unknown> {
  const api: Record<string, unknown> = {
    version: '1.100.0',
    Disposable,
    EventEmitter,
    Uri,
    ThemeColor,
    ThemeIcon,
    MarkdownString,
    CancellationTokenSource,
    RelativePattern: class {
      constructor(
        readonly base: unknown,
        readonly pattern: string,
      ) {}
    },
    FileType: { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 },
    StatusBarAlignment: { Left: 1, Right: 2 },
    ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2, Three: 3 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    ExtensionMode: { Production: 1, Development: 2, Test: 3 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
    UIKind: { Desktop: 1, Web: 2 },
    LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
    workspace: stubWorkspace(contributedDefaults(repo), workspace),
    window: stubWindow(),
    commands: {
      registerCommand: disposable,
      registerTextEditorCommand: disposable,
      executeCommand: async () => undefined,
      getCommands: async () => [],
    },
    env: {
      appName: 'Visual Studio Code',
      appRoot: '/nonexistent',
      language: 'en',
      machineId: 'bench-machine',
      sessionId: 'bench-session',
      uriScheme: 'vscode',
      uiKind: 1,
      isTelemetryEnabled: false,
      onDidChangeTelemetryEnabled: event(),
      clipboard: { readText: async () => '', writeText: async () => undefined },
      openExternal: async () => true,
      asExternalUri: async (u: Uri) => u,
    },
  };
  return new Proxy(api, {
    get(target, prop) {
      if (prop in target) return target[prop as string];
      if (prop === 'then' || typeof prop === 'symbol') return undefined;
      target[prop] = noop(`vscode.${prop}`);
      return target[prop];
    },
  });
}

/** `vscode.workspace`: one folder, trusted, settings from the contributed defaults. */
function stubWorkspace(defaults: Map<string, unknown>, workspace: string): Record<string, unknown> {
  const getConfiguration = (section?: string) => ({
    get: (key: string, def?: unknown) => {
      const full = section ? `${section}.${key}` : key;
      return defaults.has(full) ? defaults.get(full) : def;
    },
    has: (key: string) => defaults.has(section ? `${section}.${key}` : key),
    inspect: () => undefined,
    update: async () => undefined,
  });
  return {
    getConfiguration,
    workspaceFolders: [{ uri: Uri.file(workspace), name: 'bench-workspace', index: 0 }],
    isTrusted: true,
    onDidChangeConfiguration: event(),
    onDidGrantWorkspaceTrust: event(),
    onDidChangeWorkspaceFolders: event(),
    onDidSaveTextDocument: event(),
    onDidOpenTextDocument: event(),
    onDidCloseTextDocument: event(),
    onDidChangeTextDocument: event(),
    registerTextDocumentContentProvider: disposable,
    registerFileSystemProvider: disposable,
    createFileSystemWatcher: () => ({ onDidChange: event(), onDidCreate: event(), onDidDelete: event(), dispose: () => undefined }),
    openTextDocument: async () => noop('TextDocument'),
    fs: noop('workspace.fs'),
  };
}

/** `vscode.window`: output channels and status bar items that do nothing, dialogs that answer undefined. */
function stubWindow(): Record<string, unknown> {
  const outputChannel = (name: string) => {
    const ch = noop(`OutputChannel(${name})`) as Record<string, unknown>;
    for (const m of ['append', 'appendLine', 'replace', 'clear', 'show', 'hide', 'dispose', 'trace', 'debug', 'info', 'warn', 'error'])
      ch[m] = () => undefined;
    ch.name = name;
    ch.logLevel = 2;
    ch.onDidChangeLogLevel = event();
    return ch;
  };
  const statusBarItem = () => {
    const item = noop('StatusBarItem') as Record<string, unknown>;
    for (const m of ['show', 'hide', 'dispose']) item[m] = () => undefined;
    return item;
  };
  return {
    createOutputChannel: outputChannel,
    createStatusBarItem: statusBarItem,
    registerWebviewViewProvider: disposable,
    registerWebviewPanelSerializer: disposable,
    registerUriHandler: disposable,
    registerTreeDataProvider: disposable,
    createTreeView: () => ({ visible: false, onDidChangeVisibility: event(), reveal: async () => undefined, dispose: () => undefined }),
    createWebviewPanel: () => noop('WebviewPanel'),
    showInformationMessage: async () => undefined,
    showWarningMessage: async () => undefined,
    showErrorMessage: async () => undefined,
    showQuickPick: async () => undefined,
    showInputBox: async () => undefined,
    showOpenDialog: async () => undefined,
    showTextDocument: async () => noop('TextEditor'),
    withProgress: async (_o: unknown, task: (p: unknown, t: unknown) => unknown) =>
      task({ report: () => undefined }, new CancellationTokenSource().token),
    activeTextEditor: undefined,
    visibleTextEditors: [],
    onDidChangeActiveTextEditor: event(),
    onDidChangeVisibleTextEditors: event(),
    onDidChangeWindowState: event(),
    state: { focused: true },
  };
}

export function createExtensionContext(repo: string, storage: string): Record<string, unknown> {
  const secrets = new Map<string, string>();
  const secretsChanged = new EventEmitter<unknown>();
  const packageJSON = (() => {
    try {
      return JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as unknown;
    } catch {
      return {};
    }
  })();
  return {
    subscriptions: [] as Array<{ dispose(): unknown }>,
    extensionPath: repo,
    extensionUri: Uri.file(repo),
    storageUri: Uri.file(join(storage, 'workspace')),
    globalStorageUri: Uri.file(join(storage, 'global')),
    logUri: Uri.file(join(storage, 'log')),
    storagePath: join(storage, 'workspace'),
    globalStoragePath: join(storage, 'global'),
    logPath: join(storage, 'log'),
    extensionMode: 1,
    globalState: memento(),
    workspaceState: memento(),
    secrets: {
      get: async (key: string) => secrets.get(key),
      store: async (key: string, value: string) => void secrets.set(key, value),
      delete: async (key: string) => void secrets.delete(key),
      onDidChange: secretsChanged.event,
    },
    asAbsolutePath: (p: string) => join(repo, p),
    environmentVariableCollection: noop('environmentVariableCollection'),
    extension: {
      id: 'splitpoint.splitpoint',
      extensionUri: Uri.file(repo),
      extensionPath: repo,
      isActive: true,
      packageJSON,
      extensionKind: 1,
      exports: undefined,
    },
    languageModelAccessInformation: noop('languageModelAccessInformation'),
  };
}

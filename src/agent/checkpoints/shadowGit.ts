// A shadow git repository: its git folder lives in the extension's storage, its work tree is the
// workspace. The workspace's own .git is never read or written (git never adds a `.git` entry),
// the workspace's .gitignore files are honoured, and no user or system git configuration, hook or
// environment variable leaks in, and neither do the workspace's .gitattributes: info/attributes
// turns off every conversion (end of line, ident, filters, working-tree-encoding), so a snapshot
// stores the exact bytes and no file can fail to convert. Snapshots are trees (`git write-tree`) kept alive by refs, so no
// commit, identity or branch is needed. Plain Node (the `git` command line), no vscode.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SplitpointError } from '../../core';

export class CheckpointError extends SplitpointError {
  constructor(message: string) {
    super(message);
    this.name = 'CheckpointError';
  }
}

/** One entry of a snapshot tree. */
export interface TreeEntry {
  path: string;
  /** '100644', '100755', '120000' (symlink) or '160000' (a nested repository, never restored). */
  mode: string;
  sha: string;
  size: number;
}

const REF_PREFIX = 'refs/splitpoint/';
/** Highest-precedence attributes: every path is stored and read back byte for byte. */
const EXACT_BYTES = '* -text -eol -crlf -ident -filter -working-tree-encoding\n';

export class ShadowGit {
  constructor(
    readonly gitDir: string,
    readonly workTree: string,
    private readonly git = 'git',
  ) {}

  /** Create the repository (idempotent) with `excludes` (gitignore lines) in its info/exclude. */
  async init(excludes: readonly string[]): Promise<void> {
    mkdirSync(this.gitDir, { recursive: true });
    await this.run(['init', '--quiet']);
    const config: Array<[string, string]> = [
      ['core.autocrlf', 'false'],
      ['core.safecrlf', 'false'],
      ['core.quotepath', 'false'],
      ['core.fsmonitor', 'false'],
      ['core.symlinks', 'true'],
      ['core.logAllRefUpdates', 'false'],
      ['gc.auto', '0'],
    ];
    for (const [k, v] of config) await this.run(['config', k, v]);
    mkdirSync(join(this.gitDir, 'info'), { recursive: true });
    writeFileSync(join(this.gitDir, 'info', 'exclude'), excludes.join('\n') + '\n');
    const attributes = join(this.gitDir, 'info', 'attributes');
    if (readText(attributes) !== EXACT_BYTES) {
      // A repository from before: its index may hold converted blobs whose stat looks unchanged, so every file is hashed again.
      rmSync(join(this.gitDir, 'index'), { force: true });
      writeFileSync(attributes, EXACT_BYTES);
    }
  }

  /**
   * What is present but ignored (never saved): files, and folders that are ignored as a whole as
   * `dir/` (git does not look inside them). A folder git lists only because everything in it is
   * ignored is not itself ignored: its ignored files are listed one by one.
   */
  async ignoredPaths(): Promise<string[]> {
    const out = splitZ(await this.run(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory']));
    const listedInside = new Set<string>();
    for (const p of out) {
      for (let i = p.indexOf('/'); i >= 0 && i < p.length - 1; i = p.indexOf('/', i + 1)) listedInside.add(p.slice(0, i + 1));
    }
    return out.filter((p) => !p.endsWith('/') || !listedInside.has(p));
  }

  /** Store `content` as a blob (kept only while a ref names it). */
  async writeBlob(content: Buffer): Promise<string> {
    return (await this.run(['hash-object', '-w', '--stdin'], content)).toString('utf8').trim();
  }

  /** Paths (relative, '/'-separated) that are new, modified or deleted since the index last saw them. */
  async changedPaths(): Promise<string[]> {
    const out = await this.run(['ls-files', '-z', '--others', '--modified', '--exclude-standard']);
    return [...new Set(splitZ(out))];
  }

  /** Stage exactly `paths` (additions, changes and deletions). */
  async stage(paths: readonly string[]): Promise<void> {
    // update-index, not add: a path that is now beyond a symlink (its folder was replaced) is a removal, not an error.
    if (paths.length > 0)
      await this.run(['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], zInput(paths.map((p) => p.replace(/\/$/, ''))));
  }

  /** Record `paths` as gone (missing, or now beyond a symlink). */
  async forget(paths: readonly string[]): Promise<void> {
    if (paths.length > 0) await this.run(['update-index', '--force-remove', '-z', '--stdin'], zInput(paths));
  }

  /** Remove `paths` from the index (the files stay). */
  async unstage(paths: readonly string[]): Promise<void> {
    if (paths.length > 0)
      await this.run(['rm', '--cached', '-q', '--ignore-unmatch', '--pathspec-from-file=-', '--pathspec-file-nul'], zInput(paths));
  }

  async writeTree(): Promise<string> {
    return (await this.run(['write-tree'])).toString('utf8').trim();
  }

  /** Every file of a tree, recursively. */
  async listTree(tree: string): Promise<TreeEntry[]> {
    const out = await this.run(['ls-tree', '-r', '-z', '-l', '--full-tree', tree]);
    return splitZ(out).map((line) => {
      // "<mode> SP <type> SP <sha> SP+ <size> TAB <path>"
      const tab = line.indexOf('\t');
      const [mode, , sha, size] = line.slice(0, tab).split(/ +/);
      return { path: line.slice(tab + 1), mode, sha, size: size === '-' ? 0 : Number(size) };
    });
  }

  async readBlob(sha: string): Promise<Buffer> {
    return this.run(['cat-file', 'blob', sha]);
  }

  async setRef(name: string, sha: string): Promise<void> {
    await this.run(['update-ref', REF_PREFIX + name, sha]);
  }

  async deleteRef(name: string): Promise<void> {
    await this.run(['update-ref', '-d', REF_PREFIX + name]);
  }

  /** Drop objects no ref (and no index entry) reaches any more. */
  async prune(): Promise<void> {
    await this.run(['prune', '--expire=now']);
  }

  /** Bytes the repository's objects take on disk. */
  async storageBytes(): Promise<number> {
    const out = (await this.run(['count-objects', '-v'])).toString('utf8');
    const kib = (key: string) => Number(new RegExp(`^${key}: (\\d+)`, 'm').exec(out)?.[1] ?? 0);
    return (kib('size') + kib('size-pack')) * 1024;
  }

  /** Run git on the shadow repository; rejects with a CheckpointError naming the command and git's message. */
  run(args: readonly string[], input?: Buffer): Promise<Buffer> {
    return new Promise((resolvePromise, reject) => {
      const child = spawn(this.git, args, { cwd: this.workTree, env: this.env(), stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => err.push(b));
      child.on('error', (e) =>
        reject(new CheckpointError(`git could not be started (${e.message}); file checkpoints need git on the PATH`)),
      );
      child.on('close', (code) => {
        if (code === 0) return resolvePromise(Buffer.concat(out));
        const message = Buffer.concat(err).toString('utf8').trim().split('\n').slice(-3).join(' ');
        reject(new CheckpointError(`git ${args[0]} failed (exit ${code}): ${message || 'no message'}`));
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(input ?? Buffer.alloc(0));
    });
  }

  private env(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
    return {
      ...env,
      GIT_DIR: this.gitDir,
      GIT_WORK_TREE: this.workTree,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
      GIT_LITERAL_PATHSPECS: '1',
      GIT_OPTIONAL_LOCKS: '0',
      LC_ALL: 'C',
    };
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

export function splitZ(out: Buffer): string[] {
  return out
    .toString('utf8')
    .split('\0')
    .filter((s) => s.length > 0);
}

export function zInput(paths: readonly string[]): Buffer {
  return Buffer.from(paths.join('\0') + '\0', 'utf8');
}

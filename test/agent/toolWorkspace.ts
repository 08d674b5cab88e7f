// The temp workspace the tools.*.test.ts files share: src/ with a.ts, b.ts and deep/c.ts, a README, a
// binary file, node_modules and .git (skipped by listings and search), a folder outside the workspace
// with a secret, and symlinks: to /etc, to the outside folder, to a file inside, and a dangling one.
// Each test file makes its own (tests write into it) and drives the tools through a harness that
// records approval requests, compaction requests and live output.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceTools, type ApprovalDecision, type ApprovalRequest, type ToolCallContext, type ToolResult } from '../../src/agent/tools';

export interface ToolWorkspace {
  /** The temp folder holding both the workspace and the folder outside it. */
  base: string;
  ws: string;
  outside: string;
}

export function createToolWorkspace(): ToolWorkspace {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'sp-tools-')));
  const ws = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(join(ws, 'src', 'deep'), { recursive: true });
  mkdirSync(join(ws, 'node_modules', 'pkg'), { recursive: true });
  mkdirSync(join(ws, '.git'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(ws, 'src', 'a.ts'), 'export const a = 1;\nexport function add(x: number, y: number) {\n  return x + y;\n}\n');
  writeFileSync(join(ws, 'src', 'b.ts'), "import { add } from './a';\n// NEEDLE here\nconsole.log(add(1, 2));\n");
  writeFileSync(join(ws, 'src', 'deep', 'c.ts'), 'const needle = "deep";\n');
  writeFileSync(join(ws, 'README.md'), '# Project\nSee src/.\n');
  writeFileSync(join(ws, 'logo.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65]));
  writeFileSync(join(ws, 'node_modules', 'pkg', 'index.js'), 'needle in node_modules\n');
  writeFileSync(join(ws, '.git', 'config'), 'needle in git\n');
  writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET\n');
  symlinkSync('/etc', join(ws, 'etc-link'));
  symlinkSync(outside, join(ws, 'outside-dir'));
  symlinkSync(join(ws, 'src', 'a.ts'), join(ws, 'a-link.ts'));
  symlinkSync(join(base, 'missing-target'), join(ws, 'dangling'));
  return { base, ws, outside };
}

export function removeToolWorkspace(base: string): void {
  rmSync(base, { recursive: true, force: true });
}

export interface Harness {
  ctx: ToolCallContext;
  requests: ApprovalRequest[];
  controller: AbortController;
  compactions: Array<string | undefined>;
  output: string[];
}

export function harness(
  decide: (req: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision> = () => ({ approved: true }),
): Harness {
  const requests: ApprovalRequest[] = [];
  const compactions: Array<string | undefined> = [];
  const output: string[] = [];
  const controller = new AbortController();
  const ctx: ToolCallContext = {
    toolUseId: 'toolu_test',
    signal: controller.signal,
    requestApproval: async (req) => {
      const full = { ...req, toolUseId: 'toolu_test' };
      requests.push(full);
      return decide(full);
    },
    requestCompaction: (focus) => compactions.push(focus),
    onOutput: (chunk) => output.push(chunk),
  };
  return { ctx, requests, controller, compactions, output };
}

/** The tools over the workspace `root()` names (read when called, so it can be set in a before hook). */
export function toolRunner(root: () => string): {
  tools: () => WorkspaceTools;
  exec: (name: string, input: unknown, h?: Harness, t?: WorkspaceTools) => Promise<ToolResult>;
} {
  const tools = () => new WorkspaceTools({ root: root(), limits: { killGraceMs: 200 } });
  const exec = (name: string, input: unknown, h: Harness = harness(), t = tools()): Promise<ToolResult> =>
    t.execute({ id: 'toolu_test', name, input }, h.ctx);
  return { tools, exec };
}

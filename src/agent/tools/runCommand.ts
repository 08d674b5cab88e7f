// run_command: a shell command in the workspace, after the user approves the command line.
import { stat } from 'node:fs/promises';
import { optionalInt, requireString } from './args';
import { defaultCommandEnv } from './commandEnv';
import { formatBytes, oneLine } from './format';
import { runShellCommand } from './shell';
import type { ToolEnvironment, WorkspaceTool } from './tool';
import { CANCELLED_BY_USER, ToolError, type ToolResult } from './types';

export const runCommandTool: WorkspaceTool = {
  readOnly: false,
  definition: {
    name: 'run_command',
    description:
      'Run a shell command in the workspace (non-interactive: stdin is closed). The user must approve it first. ' +
      'Returns the exit code and the combined stdout/stderr (the last 30 KB if longer). Killed after timeout_ms (default 120000). ' +
      'Secrets in the environment (*_API_KEY, *_TOKEN, *_SECRET, AWS_*, ...) are not passed to it.',
    input_schema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command line, run through the shell.' },
        cwd: { type: 'string', description: 'Working folder, relative to the workspace root. Default: the root.' },
        timeout_ms: {
          type: 'integer',
          minimum: 1,
          description: 'Kill the command after this many milliseconds. Default 120000, at most 600000.',
        },
      },
      required: ['command'],
    },
  },
  run: runCommand,
};

async function runCommand(args: Record<string, unknown>, env: ToolEnvironment): Promise<ToolResult> {
  const command = requireString(args, 'command');
  if (command.trim() === '') throw new ToolError('command is empty');
  if (command.includes('\0')) throw new ToolError('command contains a NUL byte');
  const cwd = env.resolvePath(args.cwd === undefined ? '.' : args.cwd, 'cwd');
  if (!cwd.exists) throw new ToolError(`no such folder: ${cwd.rel}`);
  if (!(await stat(cwd.real)).isDirectory()) throw new ToolError(`cwd ${cwd.rel} is not a folder`);
  const requested = optionalInt(args, 'timeout_ms', 1);
  const timeoutMs = Math.min(requested ?? env.limits.defaultCommandTimeoutMs, env.limits.maxCommandTimeoutMs);

  const where = cwd.rel === '.' ? '' : ` in ${cwd.rel}`;
  const decision = await env.ctx.requestApproval({ tool: 'run_command', title: `Run \`${oneLine(command)}\`${where}`, command });
  if (env.ctx.signal.aborted) return { content: CANCELLED_BY_USER, isError: true };
  if (!decision.approved)
    return { content: `The user rejected running this command${decision.reason ? `: ${decision.reason}` : '.'}`, isError: true };

  const run = await runShellCommand(command, {
    cwd: cwd.real,
    timeoutMs,
    signal: env.ctx.signal,
    maxOutputBytes: env.limits.maxCommandOutputBytes,
    killGraceMs: env.limits.killGraceMs,
    shell: env.shell,
    env: env.env ?? defaultCommandEnv(),
    onOutput: env.ctx.onOutput,
  });
  const parts: string[] = [];
  if (run.droppedBytes > 0)
    parts.push(`[${formatBytes(run.droppedBytes)} of earlier output dropped; showing the last ${formatBytes(run.keptBytes)}]`);
  parts.push(run.output.length > 0 ? run.output.replace(/\n$/, '') : '(no output)');
  if (run.cancelled) parts.push(`[${CANCELLED_BY_USER} The command was stopped.]`);
  else if (run.timedOut) parts.push(`[Timed out after ${timeoutMs} ms; the command was killed.]`);
  else if (run.exitCode !== null) parts.push(`[Exit code ${run.exitCode}]`);
  else parts.push(`[Terminated by signal ${run.signal ?? 'unknown'}]`);
  if (run.lingering) parts.push('[Background processes kept the output open; output after the command exited was not captured.]');
  if (run.escaped) parts.push(`[Also killed, having left the command's process group: ${describeProcesses(run.escaped)}]`);
  if (run.stillRunning) parts.push(`[Still running after the command returned: ${describeProcesses(run.stillRunning)}]`);
  if (run.invalidBytes > 0) {
    const n = run.invalidBytes;
    parts.push(`[${n} byte${n === 1 ? '' : 's'} of the output ${n === 1 ? 'is' : 'are'} not valid UTF-8 and shown as U+FFFD.]`);
  }
  if (run.spawnError) parts.push(`[Could not start the command: ${run.spawnError}]`);
  return { content: parts.join('\n'), isError: run.cancelled || run.timedOut || run.exitCode !== 0 };
}

function describeProcesses(ps: ReadonlyArray<{ pid: number; command: string }>): string {
  const shown = ps.slice(0, 10).map((p) => `pid ${p.pid} \`${p.command}\``);
  return ps.length > 10 ? `${shown.join(', ')} and ${ps.length - 10} more` : shown.join(', ');
}

// The workspace tools module: what the agent loop, the controller and tests import. One file per
// tool (schema, read-only flag and handler side by side), listed in registry.ts; workspacePath.ts
// confines paths; shell.ts runs commands; workspaceTools.ts is the executor.
export * from './types';
export { DEFAULT_TOOL_LIMITS, type ToolLimits } from './limits';
export { resolveWorkspacePath, type ResolvedPath } from './workspacePath';
export { runShellCommand, type CommandRun, type RunShellOptions } from './shell';
export { decodeUtf8, looksBinary, writeFileAtomically } from './files';
export { findRipgrep, vscodeRipgrepCandidates } from './ripgrep';
export { formatBytes } from './format';
export { MUTATING_TOOLS, READ_ONLY_TOOLS, WORKSPACE_TOOLS } from './registry';
export type { ToolEnvironment, WorkspaceTool } from './tool';
export { WorkspaceTools, type WorkspaceToolsOptions } from './workspaceTools';
export { readFileConfined, writeFileConfined } from './confinedFs';
export { executableConfigWarning } from './protectedPaths';
export { scrubSecrets } from './commandEnv';

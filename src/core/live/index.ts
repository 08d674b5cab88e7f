// Live sessions of the agents people already use (issue 24): discovery of the Claude Code, Codex and
// Splitpoint sessions of a workspace (discover.ts, reading only each file's head and tail: peek.ts, plus
// the compaction count of compactionScan.ts), and the live status of a followed session (status.ts).
export { discoverSessions, claudeProjectFolderName, claudeProjectFolderNames } from './discover';
export { agentOf, liveCalls, liveStatus, type LiveStatusOptions } from './status';
export { CompactionScanCache } from './compactionScan';
export type { AgentKind, DiscoveredSession, DiscoverOptions, DiscoverResult, LiveCall, LiveStatus } from './types';

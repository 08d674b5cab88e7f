// The AgentController's public types: what it needs from its host, and what it reports.
import type Anthropic from '@anthropic-ai/sdk';
import type { HostCountingOptions } from '../loop/hostCounting';
import type { HostSettings } from '../../settings/hostSettings';
import type { McpToolHost } from '../mcp';

export interface ControllerLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface ControllerDeps {
  /** The workspace folder the tools are confined to (undefined: no folder open, tools refuse paths). */
  workspaceRoot: string | undefined;
  /** Where sessions and chat logs live (the extension's storage). */
  storageDir: string;
  settings: HostSettings;
  getApiKey: () => Promise<string | undefined>;
  trusted: boolean;
  log: ControllerLog;
  /** Injected in tests. */
  createClient?: (apiKey: string, baseURL: string | undefined) => Anthropic;
  ripgrepPath?: string; // search's rg (VS Code's, under appRoot); default: findRipgrep()
  /** How tokens are counted (default: on a worker thread; see HostCounting). */
  counting?: HostCountingOptions;
  /** Tools of MCP servers (each call approved unless allow-listed); the agent offers them after its own. */
  mcp?: McpToolHost;
  /** The user allowed instruction files in this untrusted workspace before (workspace state), and how to remember it. */
  instructionsAllowed?: boolean;
  rememberAllowed?: () => void;
}

export interface SessionSummary {
  id: string;
  title: string;
  updatedAt: number;
  compactions: number;
}

/** What compactNow takes: strategy and params default to the settings; the trigger to 'manual'. */
export type CompactNowOptions = {
  focus?: string;
  strategy?: string;
  params?: Record<string, number>;
  trigger?: 'manual' | 'inspector';
  /** Hold an LLM summary as a draft for the user to edit, apply or discard (see draftSummary). */
  review?: boolean;
  /** The split-at strategy's chosen message ("Split here" in the inspector). */
  splitAtId?: string;
};

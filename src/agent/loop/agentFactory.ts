// How the host builds an agent loop: the Anthropic client for a key, the workspace tools (read-only
// in an untrusted workspace or without a folder), the system prompt, and what those cost in tokens
// per request (known before any agent exists, for the context meter and the inspector).
import type Anthropic from '@anthropic-ai/sdk';
import { anthropicSdk } from './sdks';
import {
  systemWithStanding,
  type ApiMessage,
  type AsyncTextCounter,
  type CachingTextTokenizer,
  type CalibratedCounter,
  type CompactionPipeline,
  type StandingContext,
} from '../../core';
import { AgentLoop, defaultSystemPrompt, requestOverheadTexts, requestOverheadTokens, type AgentEvent } from './agent';
import { countRequestTokens } from './anthropicClient';
import type { HostSettings } from '../../settings/hostSettings';
import { ToolsWithMcp, type McpToolHost } from '../mcp';
import { WorkspaceTools, type ApprovalGate, type ToolExecutor } from '../tools';

export interface AgentFactoryDeps {
  /** The workspace folder the tools are confined to (undefined: no folder open). */
  workspaceRoot: string | undefined;
  storageDir: string;
  trusted: boolean;
  tokenizer: CachingTextTokenizer;
  /** Injected in tests. */
  createClient?: (apiKey: string, baseURL: string | undefined) => Anthropic;
  /** The ripgrep binary for the search tool (default: findRipgrep()). */
  ripgrepPath?: string;
  /** Tools of MCP servers, offered after the workspace tools (read at every request). */
  mcp?: McpToolHost;
  /** What every request carries outside the history (instructions, task list), appended to the system prompt. */
  standing?: () => StandingContext;
  /** A file tool named this path (nested instruction files join). */
  onFileTouched?: (path: string) => void;
}

export interface AgentRequest {
  apiKey: string;
  settings: HostSettings;
  pipeline: CompactionPipeline;
  calibration: CalibratedCounter;
  approvals: ApprovalGate;
  onEvent: (e: AgentEvent) => void;
}

/** Settings an agent is built with: a change needs a new agent (and, for the model, its calibration). */
export function agentSettingsChanged(a: HostSettings, b: HostSettings): boolean {
  return a.model !== b.model || a.baseUrl !== b.baseUrl || a.maxOutputTokens !== b.maxOutputTokens || a.promptCaching !== b.promptCaching;
}

export class AgentFactory {
  private staticOverhead: { key: string; system: number; tools: number } | undefined;

  constructor(private readonly deps: AgentFactoryDeps) {}

  create(r: AgentRequest): AgentLoop {
    const { settings } = r;
    const client = this.client(r.apiKey, settings);
    const { tools, system } = this.toolsAndSystem(settings);
    return new AgentLoop({
      client,
      model: settings.model,
      maxTokens: settings.maxOutputTokens,
      system,
      pipeline: r.pipeline,
      tools,
      approvals: r.approvals,
      calibration: r.calibration,
      tokenizer: this.deps.tokenizer,
      contextWindow: settings.contextWindow,
      promptCaching: settings.promptCaching,
      ...(this.deps.standing ? { standing: this.deps.standing } : {}),
      ...(this.deps.onFileTouched ? { onFileTouched: this.deps.onFileTouched } : {}),
      onEvent: r.onEvent,
    });
  }

  /**
   * The API's count (count_tokens) of the request the agent would send with `messages`: the same
   * model, system prompt and tool definitions. Throws an LlmError when the API cannot say.
   */
  countInputTokens(apiKey: string, settings: HostSettings, messages: readonly ApiMessage[], signal?: AbortSignal): Promise<number> {
    const { tools, system } = this.toolsAndSystem(settings);
    const request = { model: settings.model, system: this.withStanding(system), tools: tools.definitions() as Anthropic.Tool[], messages };
    return countRequestTokens(this.client(apiKey, settings), request, { signal });
  }

  /** What the agent sends besides its messages (client, system prompt, tool definitions): a probe check sends the same. */
  requestParts(apiKey: string, settings: HostSettings): { client: Anthropic; system: string; tools: Anthropic.Tool[] } {
    const { tools, system } = this.toolsAndSystem(settings);
    return { client: this.client(apiKey, settings), system: this.withStanding(system), tools: tools.definitions() as Anthropic.Tool[] };
  }

  /** The base system prompt with the standing section as it is now (what the agent's next request sends). */
  private withStanding(system: string): string {
    return systemWithStanding(system, this.deps.standing?.());
  }

  private client(apiKey: string, settings: HostSettings): Anthropic {
    return this.deps.createClient
      ? this.deps.createClient(apiKey, settings.baseUrl)
      : new (anthropicSdk())({ apiKey, baseURL: settings.baseUrl, maxRetries: 2 });
  }

  /** System prompt and tool definitions, in tokens (the agent sends exactly these). Computed again when the tools change (MCP). */
  overheadParts(settings: HostSettings): { system: number; tools: number } {
    const { tools, system } = this.toolsAndSystem(settings);
    const definitions = tools.definitions();
    const key = definitions.map((d) => d.name).join(',');
    if (this.staticOverhead?.key !== key) {
      const systemTokens = this.deps.tokenizer.countText(system);
      this.staticOverhead = {
        key,
        system: systemTokens,
        tools: requestOverheadTokens(this.deps.tokenizer, system, definitions) - systemTokens,
      };
    }
    return this.staticOverhead;
  }

  /**
   * overheadParts counted on `counter` (the counting worker), so its first synchronous read (the meter's first
   * view, at activation) finds them and the host never waits on the worker for them. The same counts: the
   * texts requestOverheadTokens counts, by the same tokenizer. A failure is left to the synchronous count
   * (which reports it).
   */
  async prepareOverhead(settings: HostSettings, counter: AsyncTextCounter): Promise<void> {
    const { tools, system } = this.toolsAndSystem(settings);
    const definitions = tools.definitions();
    const key = definitions.map((d) => d.name).join(',');
    if (this.staticOverhead?.key === key) return;
    try {
      const [systemTokens, ...toolTokens] = await counter.countTexts(requestOverheadTexts(system, definitions));
      if (this.staticOverhead?.key !== key)
        this.staticOverhead = { key, system: systemTokens, tools: toolTokens.reduce((a, b) => a + b, 0) };
    } catch {
      // Counted synchronously on first use instead.
    }
  }

  /** The agent's tools and system prompt (read-only tools in an untrusted workspace or without a folder). */
  private toolsAndSystem(settings: HostSettings): { tools: ToolExecutor; system: string } {
    const readOnly = !this.deps.trusted || !this.deps.workspaceRoot;
    const tools = new WorkspaceTools({
      root: this.deps.workspaceRoot ?? this.deps.storageDir,
      readOnly,
      limits: { defaultCommandTimeoutMs: settings.commandTimeoutMs },
      ripgrepPath: this.deps.ripgrepPath,
    });
    const system = defaultSystemPrompt({ readOnly, workspaceRoot: this.deps.workspaceRoot });
    return { tools: this.deps.mcp ? new ToolsWithMcp(tools, this.deps.mcp) : tools, system };
  }
}

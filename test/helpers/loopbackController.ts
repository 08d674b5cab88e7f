// An AgentController over the loopback API server, as the agent tests build it: the real SDK without
// retries, a test key, a trusted workspace and a quiet log. `settings` is laid over the defaults (model
// claude-test, the server's base URL); `deps` replaces any other dependency.
import Anthropic from '@anthropic-ai/sdk';
import { AgentController, type ControllerDeps } from '../../src/agent/service/controller';
import { DEFAULT_HOST_SETTINGS, type HostSettings } from '../../src/settings/hostSettings';

export interface LoopbackControllerOptions {
  workspace: string | undefined;
  storage: string;
  /** The loopback server's base URL. */
  baseURL: string;
  settings?: Partial<HostSettings>;
  deps?: Partial<ControllerDeps>;
}

export function loopbackController(o: LoopbackControllerOptions): AgentController {
  return new AgentController({
    workspaceRoot: o.workspace,
    storageDir: o.storage,
    settings: { ...DEFAULT_HOST_SETTINGS, model: 'claude-test', baseUrl: o.baseURL, ...o.settings },
    getApiKey: async () => 'sk-test',
    trusted: true,
    log: { info: () => {}, warn: () => {}, error: () => {} },
    createClient: (apiKey, url) => new Anthropic({ apiKey, baseURL: url, maxRetries: 0 }),
    ...o.deps,
  });
}

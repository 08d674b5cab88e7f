// HostSettings translated into what the engine takes: validated strategy parameters, pipeline
// settings, a plan context, and the transcript folder. Pure functions of the settings.
import { isAbsolute, join, resolve } from 'node:path';
import {
  budgetTrigger,
  DEFAULT_PLAN_CONTEXT,
  errorMessage,
  getStrategy,
  ReplacementCache,
  resolveParams,
  type MessageTokenCounter,
  type PipelineSettings,
  type PlanContext,
} from '../core';
import { shippedDefault } from './schema';
import type { HostSettings } from './hostSettings';

/** Settings defaults for a strategy, validated (bad settings fall back to the built-in defaults, with a warning). */
export function strategyParamsFor(settings: HostSettings, name: string, warn: (message: string) => void): Record<string, number> {
  const def = getStrategy(name);
  try {
    return resolveParams(def, settings.strategyParams[name] ?? {});
  } catch (e) {
    warn(`Ignoring splitpoint.strategyParams["${name}"]: ${errorMessage(e)}`);
    return resolveParams(def, {});
  }
}

/** The pipeline's settings; `params` gives the auto-compact strategy's parameters. */
export function pipelineSettingsFor(settings: HostSettings, params: (strategy: string) => Record<string, number>): PipelineSettings {
  // With the server clearing tool results, the local micro-compaction layer stands down (it would clear them first).
  const serverClears = settings.autoCompact.enabled && settings.autoCompact.strategy === 'server-clear-tool-uses';
  return {
    microCompact: { ...settings.microCompact, enabled: !serverClears },
    autoCompact: {
      enabled: settings.autoCompact.enabled,
      strategy: settings.autoCompact.strategy,
      params: params(settings.autoCompact.strategy),
      trigger: budgetTrigger({ fraction: settings.autoCompact.threshold }),
      review: settings.autoCompact.review ?? (shippedDefault('autoCompact.review') as 'never' | 'always'),
      ...(settings.serverContext ? { serverContext: settings.serverContext } : {}),
      policy: settings.autoCompact.policy ?? (shippedDefault('autoCompact.policy') as 'threshold' | 'pays'),
      minCallsBetween: settings.autoCompact.minCallsBetween ?? shippedDefault('autoCompact.minCallsBetween'),
    },
    promptCaching: settings.promptCaching,
  };
}

/** A fresh plan context (its own replacement cache); settings changes update it in place. */
export function planContextFor(settings: HostSettings, tokens: MessageTokenCounter): PlanContext {
  return {
    ...DEFAULT_PLAN_CONTEXT,
    tokens,
    contextWindow: settings.contextWindow,
    maxOutputTokens: settings.maxOutputTokens,
    model: settings.model,
    copies: new ReplacementCache(),
    // Every compaction carries the artifact ledger of what it archives (issue 13): files, commands,
    // errors and the user's instructions survive in the summary turn or the tail's opener.
    ledger: true,
  };
}

/** Where transcripts go: the setting if absolute, else under the workspace, else under storage. */
export function transcriptDirFor(settings: HostSettings, workspaceRoot: string | undefined, storageDir: string): string {
  const folder = settings.transcriptFolder;
  if (isAbsolute(folder)) return folder;
  return workspaceRoot ? resolve(workspaceRoot, folder) : join(storageDir, 'transcripts');
}

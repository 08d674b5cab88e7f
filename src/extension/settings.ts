// Typed access to the `splitpoint.*` settings. Read fresh on every change (no reload needed).
import * as vscode from 'vscode';
import type { HostSettings } from '../agent/hostSettings';
import { STRATEGY_NAMES, type StrategyName } from '../core';

export function readSettings(): HostSettings {
  const c = vscode.workspace.getConfiguration('splitpoint');
  const model = c.get<string>('model', 'claude-sonnet-4-5').trim() || 'claude-sonnet-4-5';
  const windows = c.get<Record<string, number>>('contextWindows', {}) ?? {};
  const defaultWindow = positive(c.get<number>('defaultContextWindow'), 200_000);
  const strategy = c.get<string>('autoCompact.strategy', 'recursive-summarization');
  return {
    model,
    baseUrl: c.get<string>('baseUrl', '').trim() || undefined,
    maxOutputTokens: positive(c.get<number>('maxOutputTokens'), 8192),
    contextWindow: positive(windows[model], defaultWindow),
    autoCompact: {
      enabled: c.get<boolean>('autoCompact.enabled', true),
      threshold: clamp(c.get<number>('autoCompact.threshold', 0.8), 0.1, 0.99),
      strategy: (STRATEGY_NAMES as readonly string[]).includes(strategy) ? (strategy as StrategyName) : 'recursive-summarization',
    },
    strategyParams: c.get<Record<string, Record<string, number>>>('strategyParams', {}) ?? {},
    microCompact: {
      keepRecent: Math.max(0, Math.floor(c.get<number>('microCompact.keepRecent', 3))),
      minChars: Math.max(0, Math.floor(c.get<number>('microCompact.minChars', 100))),
    },
    transcriptFolder: c.get<string>('transcriptFolder', '.transcripts').trim() || '.transcripts',
    commandTimeoutMs: positive(c.get<number>('commandTimeoutSeconds'), 120) * 1000,
  };
}

function positive(v: number | undefined, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback;
}

function clamp(v: number, lo: number, hi: number): number {
  return Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : 0.8;
}

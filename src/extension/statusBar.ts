// The context meter in the status bar: tokens the next request carries, of the window; warning
// colour near the auto-compact threshold; a click opens the inspector.
import * as vscode from 'vscode';
import type { AgentController } from '../agent/service/controller';
import { formatTokens } from '../core';
import type { ContextMeter } from '../protocol';
import { Disposable } from './lifecycle';

export class StatusBar extends Disposable {
  private readonly item = this.register(vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100));

  constructor(private readonly controller: AgentController) {
    super();
    this.item.command = 'splitpoint.openInspector';
    this.register(controller.onDidChangeContext(() => this.update()));
    this.register(controller.onDidChangeSession(() => this.update()));
    this.update();
  }

  private update(): void {
    const c: ContextMeter = this.controller.contextMeter();
    const pct = c.window > 0 ? Math.round((100 * c.used) / c.window) : 0;
    this.item.text = `$(layers) ${formatK(c.used)} / ${formatK(c.window)} (${pct}%)`;
    this.item.tooltip =
      // formatTokens, not toLocaleString: the first toLocaleString of a process initializes ICU (~15 ms, at activation).
      `Splitpoint: the next request carries about ${formatTokens(c.used)} of ${formatTokens(c.window)} tokens` +
      `${c.threshold ? `; auto-compact at ${formatTokens(c.threshold)}` : ''}. Click to open the context inspector.`;
    this.item.backgroundColor =
      c.threshold && c.used >= c.threshold * 0.95 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }
}

function formatK(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(n >= 100_000 ? 0 : 1)}k` : String(n);
}

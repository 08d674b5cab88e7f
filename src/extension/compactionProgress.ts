// A cancellable progress notification while a compaction's summary is being written; cancelling
// aborts the summarization (the history then stays unchanged).
import * as vscode from 'vscode';
import type { AgentController } from '../agent/service/controller';
import { Disposable, MutableDisposable, toDisposable } from './lifecycle';

export class CompactionProgress extends Disposable {
  /** The notification shown now; disposing it closes it. */
  private readonly shown = this.register(new MutableDisposable());

  constructor(controller: AgentController) {
    super();
    this.register(
      controller.onCompactionProgress((p) => {
        if (p.running && !this.shown.value) this.show(p.strategy, p.abort);
        else if (!p.running) this.shown.clear();
      }),
    );
  }

  private show(strategy: string | undefined, abort: (() => void) | undefined): void {
    let finished = false;
    let done: (() => void) | undefined;
    this.shown.value = toDisposable(() => {
      finished = true;
      done?.();
    });
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Splitpoint: compacting (${strategy ?? 'summary'})…`, cancellable: true },
      (_progress, token) =>
        new Promise<void>((resolve) => {
          done = resolve;
          if (finished) resolve();
          token.onCancellationRequested(() => abort?.());
        }),
    );
  }
}

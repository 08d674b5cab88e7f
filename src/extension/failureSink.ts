// Where a failed webview intent is reported: the output channel (with the stack) and an error
// notification (one line).
import * as vscode from 'vscode';
import type { FailureSink } from './router';

export function failureSink(log: vscode.LogOutputChannel): FailureSink {
  return {
    error: (message) => log.error(message),
    showError: (message) => void vscode.window.showErrorMessage(message),
  };
}

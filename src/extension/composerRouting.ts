// The chat composer's intents: 'send' (a prompt with its @-mentioned files and images: the files are
// read inside the workspace and attached, what could not be is said in the chat) and 'listFiles'
// (the @-mention picker's list: rg --files, .gitignore honoured; VS Code's findFiles, which applies
// files.exclude, when rg is missing).
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import type { AgentController } from '../agent/service/controller';
import { promptAttachments } from '../agent/service/promptAttachments';
import { findRipgrep, vscodeRipgrepCandidates } from '../agent/tools';
import { listWorkspaceFiles, MAX_LISTED_FILES, type FileListing } from '../agent/service/workspaceFiles';
import type { ChatToHost, HostToChat } from '../protocol';
import type { MessageHandlers } from './router';
import { readMentionMaxFileBytes } from './settings';

type ComposerMessages = Extract<ChatToHost, { type: 'send' | 'listFiles' }>;

export function composerHandlers(
  controller: AgentController,
  post: (msg: HostToChat) => void,
  log: { warn(message: string): void },
): MessageHandlers<ComposerMessages> {
  const root = () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return {
    send: async (msg) => {
      const a = await promptAttachments(root(), msg.mentions ?? [], msg.images ?? [], readMentionMaxFileBytes());
      for (const p of a.problems) controller.chatNotice(p);
      await controller.send(msg.text, a);
    },
    listFiles: async () => post({ type: 'files', ...(await listFiles(root(), log)) }),
  };
}

async function listFiles(root: string | undefined, log: { warn(message: string): void }): Promise<FileListing> {
  if (!root) return { files: [], truncated: false };
  const rg = vscodeRipgrepCandidates(vscode.env.appRoot).find((p) => existsSync(p)) ?? findRipgrep();
  if (rg) {
    try {
      return await listWorkspaceFiles(rg, root);
    } catch (e) {
      log.warn(`Listing the workspace with rg failed, using findFiles: ${String(e)}`);
    }
  }
  const uris = await vscode.workspace.findFiles('**/*', undefined, MAX_LISTED_FILES + 1);
  const files = uris.map((u) => vscode.workspace.asRelativePath(u, false)).sort();
  return { files: files.slice(0, MAX_LISTED_FILES), truncated: files.length > MAX_LISTED_FILES };
}

// The model picker (Splitpoint: Choose Model…, also the model name in the chat header): a QuickPick of
// the models the API's models endpoint lists (or the built-in list when it cannot be reached, said in
// the picker's title), each with its context window. Picking sets `splitpoint.model` in the user
// settings: the configuration listener hands the new settings to the controller, which keeps the
// session and measures the context meter and the auto-compact threshold against the new window.
import * as vscode from 'vscode';
import { listModels, type ModelList } from '../agent/loop/modelList';
import { Disposable } from './lifecycle';
import type { SettingsReader } from './settings';

export class ModelPicker extends Disposable {
  static readonly command = 'splitpoint.pickModel';

  constructor(
    private readonly getApiKey: () => Promise<string | undefined>,
    private readonly log: vscode.LogOutputChannel,
    private readonly settings: SettingsReader,
  ) {
    super();
    this.register(vscode.commands.registerCommand(ModelPicker.command, () => this.pick()));
  }

  async pick(): Promise<string | undefined> {
    const settings = this.settings.read();
    const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { id: string }>();
    qp.title = 'Splitpoint: Choose Model';
    qp.placeholder = 'Loading models…';
    qp.busy = true;
    qp.show();
    let list: ModelList;
    try {
      const apiKey = await this.getApiKey().catch(() => undefined);
      list = await listModels({ apiKey, baseURL: settings.baseUrl, windowFor: (id) => this.settings.contextWindowOf(id) });
    } catch (e) {
      qp.dispose();
      throw e;
    }
    if (list.error) this.log.warn(`Models endpoint unavailable, showing the built-in list: ${list.error}`);
    qp.busy = false;
    qp.title = list.source === 'api' ? 'Splitpoint: Choose Model' : `Splitpoint: Choose Model (offline: built-in list, ${list.error})`;
    qp.placeholder = `Current: ${settings.model}. The session continues with the model you pick.`;
    qp.items = list.models.map((m) => ({
      id: m.id,
      label: m.id === settings.model ? `$(check) ${m.id}` : m.id,
      description: m.displayName,
      detail: `${m.contextWindow.toLocaleString('en-US')} tokens context window`,
    }));
    const active = qp.items.find((i) => i.id === settings.model);
    if (active) qp.activeItems = [active];
    const picked = await new Promise<string | undefined>((resolve) => {
      qp.onDidAccept(() => resolve(qp.selectedItems[0]?.id));
      qp.onDidHide(() => resolve(undefined));
    });
    qp.dispose();
    if (!picked || picked === settings.model) return picked;
    // A workspace that sets the model would shadow a user value: it is changed where it is set.
    await this.settings.setModel(picked);
    this.log.info(`Model set to ${picked}.`);
    return picked;
  }
}

// Where settings are read from: anything that answers like VS Code's WorkspaceConfiguration for the
// section `splitpoint` (the real one in the extension; the schema's defaults for replays and tests).
/** What `inspect()` on a WorkspaceConfiguration answers (the scopes this module looks at). */
export interface InspectedSetting<T> {
  key: string;
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/** The part of vscode.WorkspaceConfiguration (for section `splitpoint`) the settings are read from. */
export interface SettingsSource {
  get<T>(section: string, defaultValue: T): T;
  get<T>(section: string): T | undefined;
  inspect<T>(section: string): InspectedSetting<T> | undefined;
}

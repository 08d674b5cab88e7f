// Theme helpers. Colours come only from VS Code's CSS variables (media/*.css); scripts only need to
// know the theme kind, which VS Code publishes as a class on <body>.

export type ThemeKind = 'light' | 'dark' | 'high-contrast' | 'high-contrast-light';

export function themeKind(body: HTMLElement = document.body): ThemeKind {
  const c = body.classList;
  if (c.contains('vscode-high-contrast-light')) return 'high-contrast-light';
  if (c.contains('vscode-high-contrast')) return 'high-contrast';
  if (c.contains('vscode-light')) return 'light';
  return 'dark';
}

/** Calls `fn` whenever VS Code switches theme; returns the unsubscribe function. */
export function onThemeChange(fn: (kind: ThemeKind) => void, body: HTMLElement = document.body): () => void {
  let last = themeKind(body);
  const observer = new MutationObserver(() => {
    const next = themeKind(body);
    if (next !== last) fn((last = next));
  });
  observer.observe(body, { attributes: true, attributeFilter: ['class'] });
  return () => observer.disconnect();
}

/** A value read from a VS Code CSS variable, e.g. cssVar('--vscode-editor-background'). */
export function cssVar(name: string, el: Element = document.documentElement): string {
  return getComputedStyle(el).getPropertyValue(name).trim();
}

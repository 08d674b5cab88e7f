// A short, log-safe description of whatever a webview sent (it may be anything).
export function safeDescribe(raw: unknown): string {
  try {
    const s = JSON.stringify(raw);
    return s === undefined ? String(raw) : s.length > 200 ? `${s.slice(0, 200)}…` : s;
  } catch {
    return typeof raw;
  }
}

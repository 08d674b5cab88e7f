// A tiny observable for the timeline's viewport, so scrolling re-renders only the minimap (not the app).
import type { ViewportInfo } from './components/Timeline';

export class ViewportStore {
  private value: ViewportInfo = { scrollTop: 0, first: 0, last: 0 };
  private readonly listeners = new Set<(v: ViewportInfo) => void>();

  get(): ViewportInfo {
    return this.value;
  }

  set(v: ViewportInfo): void {
    if (v.scrollTop === this.value.scrollTop && v.first === this.value.first && v.last === this.value.last) return;
    this.value = v;
    for (const l of this.listeners) l(v);
  }

  subscribe(listener: (v: ViewportInfo) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

// The timeline's viewport: where it is scrolled (a tiny observable, so scrolling re-renders only the
// minimap, not the app) and the way to scroll it (the timeline attaches itself while it is mounted;
// the minimap and "Show the split point" scroll it through the store).

export interface ViewportInfo {
  scrollTop: number;
  /** First and last row (inclusive) at least partly in view. */
  first: number;
  last: number;
}

/** What the mounted timeline lets others do to its scroll position. */
export interface TimelineScroller {
  scrollToIndex(index: number, align?: 'nearest' | 'center'): void;
  scrollToFraction(fraction: number): void;
}

export class ViewportStore {
  private value: ViewportInfo = { scrollTop: 0, first: 0, last: 0 };
  private readonly listeners = new Set<(v: ViewportInfo) => void>();
  private scroller: TimelineScroller | null = null;

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

  /** The timeline mounted (or its geometry changed); returns the function that detaches it. */
  attach(scroller: TimelineScroller): () => void {
    this.scroller = scroller;
    return () => {
      if (this.scroller === scroller) this.scroller = null;
    };
  }

  scrollToIndex(index: number, align?: 'nearest' | 'center'): void {
    this.scroller?.scrollToIndex(index, align);
  }

  scrollToFraction(fraction: number): void {
    this.scroller?.scrollToFraction(fraction);
  }
}

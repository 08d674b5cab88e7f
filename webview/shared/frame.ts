// Coalesces work to one run per animation frame. Hidden webviews may not get animation frames, so
// a timer fallback guarantees progress.

export function frameScheduler(fn: () => void, fallbackMs = 100): { schedule(): void; flushNow(): void } {
  let raf: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    if (raf !== undefined) cancelAnimationFrame(raf);
    if (timer !== undefined) clearTimeout(timer);
    raf = timer = undefined;
    fn();
  };
  return {
    schedule() {
      if (raf !== undefined || timer !== undefined) return;
      raf = requestAnimationFrame(run);
      timer = setTimeout(run, fallbackMs);
    },
    flushNow() {
      if (raf !== undefined || timer !== undefined) run();
    },
  };
}

// First paint first: the timeline's rows and what sits above them are painted before the panels a
// first look can wait for (the controls column, the minimap's columns), which render when the browser
// is idle after that paint. A followed session repaints on every call, but only its first session
// waits: once shown, everything renders in one pass.
import { useLayoutEffect, useState } from 'preact/hooks';

/** Hidden webviews get no animation frames (and maybe no idle time): the deferred work still runs after this. */
const FALLBACK_MS = 150;

/**
 * Runs `fn` once, after the next frame is painted, when the page is idle (other tasks, such as a
 * host message or an input, go first). Returns the function that cancels it.
 */
export function afterNextPaint(fn: () => void): () => void {
  let done = false;
  let cancelIdle: (() => void) | undefined;
  const run = () => {
    if (done) return;
    done = true;
    cancel();
    fn();
  };
  const raf = requestAnimationFrame(() => {
    // The frame is about to paint; the first idle period after it runs the work.
    if (typeof requestIdleCallback === 'function') {
      const id = requestIdleCallback(run, { timeout: FALLBACK_MS });
      cancelIdle = () => cancelIdleCallback(id);
    } else {
      const id = window.setTimeout(run, 0);
      cancelIdle = () => window.clearTimeout(id);
    }
  });
  const timer = window.setTimeout(run, FALLBACK_MS);
  function cancel() {
    cancelAnimationFrame(raf);
    window.clearTimeout(timer);
    cancelIdle?.();
  }
  return () => {
    done = true;
    cancel();
  };
}

/** False until the first frame in which `shown` was true has been painted; true from then on. */
export function useFirstPaintDone(shown: boolean): boolean {
  const [done, setDone] = useState(false);
  useLayoutEffect(() => (shown && !done ? afterNextPaint(() => setDone(true)) : undefined), [shown, done]);
  return done;
}

// Rate limiting for work triggered by frequent changes (saving the view state).

/** Calls `fn` at most once per `ms`, always with the latest call's arguments (trailing edge). */
export function throttle(fn: () => void, ms: number): { (): void; flush(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    timer = undefined;
    fn();
  };
  const throttled = () => {
    if (timer === undefined) timer = setTimeout(run, ms);
  };
  throttled.flush = () => {
    if (timer !== undefined) {
      clearTimeout(timer);
      run();
    }
  };
  return throttled;
}

// A 1 ms timer chain: the longest time between two of its ticks (minus the 1 ms asked for) is the longest
// block of the thread while it runs. Shared by the bench children (activation, counting, host waits).

export interface TimerChain {
  /** The longest gap since the chain started or the last take(); a block still under way counts up to now. */
  take(): number;
  stop(): void;
}

export function timerChain(): TimerChain {
  let last = performance.now();
  let longest = 0;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last - 1);
    last = now;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  return {
    take() {
      const r = Math.max(longest, performance.now() - last - 1);
      longest = 0;
      return r;
    },
    stop: () => clearTimeout(timer),
  };
}

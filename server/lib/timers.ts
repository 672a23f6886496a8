/**
 * Timers as a value, so what waits (a debounce, a poll) can be driven by a test clock instead of real time.
 * Real timers are unref'd: a watch or a poll never keeps the process alive on its own.
 */
export interface Cancel {
  cancel(): void;
}

export interface Timers {
  after(ms: number, fn: () => void): Cancel;
  every(ms: number, fn: () => void): Cancel;
}

export const realTimers: Timers = {
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
  every(ms, fn) {
    const t = setInterval(fn, ms);
    t.unref();
    return { cancel: () => clearInterval(t) };
  },
};

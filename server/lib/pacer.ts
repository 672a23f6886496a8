/**
 * Long work on the service's thread, done in slices: `await pace()` between steps gives the event loop a turn
 * (a macrotask, not a microtask: promise continuations alone never let a request in) once the current slice
 * has run for `sliceMs`. A write of a million-row sheet then holds no read for more than a slice.
 */
import { performance } from 'node:perf_hooks';

export type Pace = () => Promise<void> | undefined;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A pacer whose slices last about `sliceMs`; call `pace()` between steps and await what it answers. */
export function pacer(sliceMs = 8): Pace {
  let since = performance.now();
  return () => {
    const now = performance.now();
    if (now - since < sliceMs) return undefined;
    return turn().then(() => {
      since = performance.now();
    });
  };
}

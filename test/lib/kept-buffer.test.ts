import { describe, expect, it } from 'vitest';
import { KeptBuffer } from '../../server/lib/kept-buffer.ts';
import { ManualTimers } from '../helpers/manual-timers.ts';

describe('KeptBuffer', () => {
  it('gives the same buffer to every use while uses come, and gives it back once they stop', () => {
    const timers = new ManualTimers();
    const kept = new KeptBuffer(2 * 1024 * 1024, 30_000, timers);
    expect(kept.held).toBe(false);
    const first = kept.take();
    expect(first.length).toBe(2 * 1024 * 1024);
    first[0] = 7;
    // Used every 20 s for two minutes: held throughout, the very same bytes.
    for (let i = 0; i < 6; i++) {
      timers.advance(20_000);
      expect(kept.take()).toBe(first);
      expect(kept.held).toBe(true);
    }
    // Then unused: still held before the period ends, given back within two periods.
    timers.advance(29_000);
    expect(kept.held).toBe(true);
    timers.advance(31_000);
    expect(kept.held).toBe(false);
    // Given back at once (detached), not left to a collection, and no timer left behind.
    expect(first.length).toBe(0);
    expect(timers.active).toBe(0);
    // The next use makes a new one.
    const second = kept.take();
    expect(second).not.toBe(first);
    expect(second.length).toBe(2 * 1024 * 1024);
    expect(timers.active).toBe(1);
  });
});

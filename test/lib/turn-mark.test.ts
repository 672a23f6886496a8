import { describe, expect, it } from 'vitest';
import { TurnMark } from '../../server/lib/turn-mark.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('TurnMark', () => {
  it('holds through the promises of its turn and is gone the next turn', async () => {
    const mark = new TurnMark();
    expect(mark.held).toBe(false);
    mark.set();
    await Promise.resolve();
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    expect(mark.held).toBe(true);
    await nextTurn();
    expect(mark.held).toBe(false);
  });

  it('is dropped at once by clear, and set again for a turn', async () => {
    const mark = new TurnMark();
    mark.set();
    mark.clear();
    expect(mark.held).toBe(false);
    mark.set();
    expect(mark.held).toBe(true);
    await nextTurn();
    expect(mark.held).toBe(false);
  });
});

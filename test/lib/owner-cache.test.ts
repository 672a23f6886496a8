import { describe, expect, it } from 'vitest';
import { OwnerCache } from '../../server/lib/owner-cache.ts';

describe('OwnerCache', () => {
  it('makes a value once per owner and key, and owners do not share', () => {
    const cache = new OwnerCache<object, string, string[]>();
    const a = {};
    const b = {};
    let made = 0;
    const make = () => {
      made++;
      return [`value ${made}`];
    };
    const first = cache.get(a, 'k', make);
    expect(cache.get(a, 'k', make)).toBe(first);
    expect(cache.get(b, 'k', make)).not.toBe(first);
    expect(cache.get(a, 'other', make)).toEqual(['value 3']);
    expect(made).toBe(3);
  });

  it('keeps a null or undefined value as made, without making it again', () => {
    const cache = new OwnerCache<object, number, null | undefined>();
    const owner = {};
    let made = 0;
    const nothing =
      <T>(value: T) =>
      () => {
        made++;
        return value;
      };
    cache.get(owner, 1, nothing(null));
    cache.get(owner, 2, nothing(undefined));
    expect(cache.get(owner, 1, nothing(null))).toBeNull();
    expect(cache.get(owner, 2, nothing(undefined))).toBeUndefined();
    expect(made).toBe(2);
  });

  it('with a bound, drops the least recently used entry of that owner only', () => {
    const cache = new OwnerCache<object, string, number>(2);
    const owner = {};
    const other = {};
    let made = 0;
    const make = () => ++made;
    cache.get(owner, 'a', make); // 1
    cache.get(owner, 'b', make); // 2
    cache.get(other, 'x', make); // 3
    cache.get(owner, 'a', make); // a used again: b is now the oldest
    cache.get(owner, 'c', make); // 4, drops b
    expect(cache.get(owner, 'a', make)).toBe(1);
    expect(cache.get(owner, 'c', make)).toBe(4);
    expect(cache.get(other, 'x', make)).toBe(3);
    expect(cache.get(owner, 'b', make)).toBe(5); // made again
    expect(made).toBe(5);
  });
});

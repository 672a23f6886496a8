/**
 * The memo of polled requests' strings (lib/recent-values.ts): a repeated string's value is made once; the strings
 * kept are bounded in count and in length, since they come from requests.
 */
import { describe, expect, it } from 'vitest';
import { RecentValues } from '../../server/lib/recent-values.ts';

describe('recent values', () => {
  it("makes a repeated string's value once and hands back the same value", () => {
    const recent = new RecentValues<{ text: string }>(4);
    let made = 0;
    const make = (text: string) => () => {
      made++;
      return { text };
    };
    const first = recent.get('a', make('a'));
    expect(recent.get('a', make('a'))).toBe(first);
    expect(recent.get('b', make('b')).text).toBe('b');
    expect(made).toBe(2);
  });

  it('keeps at most its count, letting all go when full', () => {
    const recent = new RecentValues<number>(3);
    let made = 0;
    const make = () => ++made;
    for (const key of ['a', 'b', 'c']) recent.get(key, make);
    expect(recent.get('a', make)).toBe(1); // still kept
    recent.get('d', make); // full: the three are let go, 'd' kept
    expect(made).toBe(4);
    expect(recent.get('d', make)).toBe(4);
    expect(recent.get('a', make)).toBe(5); // made again
  });

  it('never keeps a string longer than its limit', () => {
    const recent = new RecentValues<number>(10, 8);
    let made = 0;
    const make = () => ++made;
    recent.get('x'.repeat(9), make);
    recent.get('x'.repeat(9), make);
    expect(made).toBe(2);
    recent.get('x'.repeat(8), make);
    recent.get('x'.repeat(8), make);
    expect(made).toBe(3);
  });
});

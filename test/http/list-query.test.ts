import { describe, expect, it } from 'vitest';
import { listQueryOf } from '../../server/http/list-query.ts';
import type { RouteRequest } from '../../server/http/route-table.ts';

/** A request as a list route reads it: its URL, and the query Express's simple parser makes of it. */
function request(search: string): RouteRequest {
  return {
    originalUrl: `/api/spreadsheets/k/Orders${search ? `?${search}` : ''}`,
    query: Object.fromEntries(new URLSearchParams(search)),
  } as unknown as RouteRequest;
}

const API = { defaultLimit: 100, maxLimit: 1000 };
const OTHER = { defaultLimit: 10, maxLimit: 50 };

describe('listQueryOf', () => {
  it('parses a repeated query string once, into a query no reader can change', () => {
    const first = listQueryOf(request('search=Name:ann&sort=-Age&limit=5'), API);
    expect(first).toMatchObject({ limit: 5, offset: 0, sort: [{ field: 'Age', descending: true }] });
    expect(listQueryOf(request('search=Name:ann&sort=-Age&limit=5'), API)).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.sort) && Object.isFrozen(first.sort[0])).toBe(
      true,
    );
    expect(() => (first.sort as unknown as unknown[]).push({ field: 'x', descending: false })).toThrow();
  });

  it('keeps each set of limits apart, and each string apart', () => {
    expect(listQueryOf(request(''), API).limit).toBe(100);
    expect(listQueryOf(request(''), OTHER).limit).toBe(10);
    expect(listQueryOf(request('limit=5000'), API).limit).toBe(1000);
    expect(listQueryOf(request('limit=5000'), OTHER).limit).toBe(50);
    expect(listQueryOf(request('offset=3'), API).offset).toBe(3);
    expect(listQueryOf(request('offset=4'), API).offset).toBe(4);
  });

  it('refuses a bad query every time it is asked, and parses a long one without keeping it', () => {
    for (let i = 0; i < 2; i++) expect(() => listQueryOf(request('limit=-1'), API)).toThrow(/limit/);
    const long = `search=Name:${'a'.repeat(2000)}`;
    const parsed = listQueryOf(request(long), API);
    expect(parsed.filters[0]).toMatchObject({ field: 'Name', value: 'a'.repeat(2000) });
    expect(listQueryOf(request(long), API)).not.toBe(parsed);
  });
});

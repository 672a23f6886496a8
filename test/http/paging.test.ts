import { describe, expect, it } from 'vitest';
import { setPagingHeaders } from '../../server/http/paging.ts';
import type { RouteRequest, RouteResponse } from '../../server/http/route-table.ts';

/** A request and response with just what the paging headers read and write (no HTTP needed for a pure step). */
function exchange(host: string, url: string) {
  const headers = new Map<string, string>();
  const req = {
    protocol: 'http',
    originalUrl: url,
    get: (name: string) => (name === 'host' ? host : undefined),
  };
  const res = {
    setHeader: (name: string, value: string) => headers.set(name.toLowerCase(), value),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    getHeaders: () => Object.fromEntries(headers),
  };
  return { req: req as unknown as RouteRequest, res: res as unknown as RouteResponse, headers };
}

const linksOf = (value: string | undefined) =>
  Object.fromEntries([...(value ?? '').matchAll(/<([^>]+)>; rel="(\w+)"/g)].map((m) => [m[2], m[1]]));

describe('paging headers', () => {
  it('answers each total, host and URL with its own links, however often one is asked', () => {
    const url = '/api/spreadsheets/k/Orders?sort=Name&limit=10&offset=10';
    for (let round = 0; round < 3; round++) {
      const small = exchange('127.0.0.1:3000', url);
      setPagingHeaders(small.req, small.res, 25, 10, 10);
      expect(small.headers.get('x-total-count')).toBe('25');
      expect(linksOf(small.headers.get('link'))).toEqual({
        first: 'http://127.0.0.1:3000/api/spreadsheets/k/Orders?sort=Name&offset=0&limit=10',
        prev: 'http://127.0.0.1:3000/api/spreadsheets/k/Orders?sort=Name&offset=0&limit=10',
        next: 'http://127.0.0.1:3000/api/spreadsheets/k/Orders?sort=Name&offset=20&limit=10',
        last: 'http://127.0.0.1:3000/api/spreadsheets/k/Orders?sort=Name&offset=20&limit=10',
      });
      // The same URL once the tab grew: the last page moves.
      const grown = exchange('127.0.0.1:3000', url);
      setPagingHeaders(grown.req, grown.res, 45, 10, 10);
      expect(linksOf(grown.headers.get('link')).last).toBe(
        'http://127.0.0.1:3000/api/spreadsheets/k/Orders?sort=Name&offset=40&limit=10',
      );
      // Another Host: its own origin.
      const other = exchange('localhost:4000', url);
      setPagingHeaders(other.req, other.res, 25, 10, 10);
      expect(linksOf(other.headers.get('link')).first).toBe(
        'http://localhost:4000/api/spreadsheets/k/Orders?sort=Name&offset=0&limit=10',
      );
    }
  });

  it('pages a URL too long to keep exactly as a short one', () => {
    const long = `/api/spreadsheets/k/Orders?search=${'x'.repeat(1200)}&limit=5`;
    const { req, res, headers } = exchange('127.0.0.1:3000', long);
    setPagingHeaders(req, res, 12, 5, 0);
    const links = linksOf(headers.get('link'));
    expect(Object.keys(links)).toEqual(['first', 'next', 'last']);
    expect(new URL(links.last!).searchParams.get('offset')).toBe('10');
    expect(new URL(links.last!).searchParams.get('search')).toBe('x'.repeat(1200));
  });
});

import { AppError } from '../errors.ts';
import { RecentValues } from '../lib/recent-values.ts';
import { fitsHeaderBudget } from './header-budget.ts';
import type { RouteRequest, RouteResponse } from './route-table.ts';

/**
 * `X-Total-Count` and an RFC 8288 `Link` header (first/prev/next/last where they exist), so clients that get
 * a bare JSON array can still page. Links keep every other query parameter of the request; `offset` and `limit`
 * come last. Each link repeats the query, so `Link` is left out when it would take the header section past its
 * budget (header-budget.ts): the total still says how far to page, in `X-Total-Count` and a body's `meta`.
 */
export function setPagingHeaders(
  req: RouteRequest,
  res: RouteResponse,
  total: number,
  limit: number,
  offset: number,
): void {
  res.setHeader('X-Total-Count', String(total));
  if (limit <= 0) return;
  const value = linkValue(`${req.protocol}://${req.get('host')}`, req.originalUrl, total, limit, offset);
  if (fitsHeaderBudget(res, 'Link', value)) res.setHeader('Link', value);
}

/** Recent `Link` values by everything they are made of: a client polling one URL gets it without a re-parse. */
const recentLinks = new RecentValues<string>(256);

function linkValue(origin: string, url: string, total: number, limit: number, offset: number): string {
  return recentLinks.get(`${total} ${limit} ${offset} ${origin}${url}`, () =>
    linksOf(origin, url, total, limit, offset),
  );
}

function linksOf(origin: string, url: string, total: number, limit: number, offset: number): string {
  const q = url.indexOf('?');
  const base = `${origin}${q === -1 ? url : url.slice(0, q)}?`;
  const params = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
  params.delete('offset');
  params.delete('limit');
  const rest = params.toString();
  const prefix = rest === '' ? base : `${base}${rest}&`;
  const link = (rel: string, at: number) => `<${prefix}offset=${at}&limit=${limit}>; rel="${rel}"`;
  const lastOffset = total > 0 ? Math.floor((total - 1) / limit) * limit : 0;
  const links = [link('first', 0)];
  if (offset > 0) links.push(link('prev', Math.max(0, Math.min(offset - limit, lastOffset))));
  if (offset + limit < total) links.push(link('next', offset + limit));
  links.push(link('last', lastOffset));
  return links.join(', ');
}

/** A `limit` query parameter: a whole number from 1 to `max`, `default` when absent (the admin API's lists). */
export function limitParameter(req: RouteRequest, bounds: { default: number; max: number }): number {
  const raw = req.query.limit;
  if (raw === undefined) return bounds.default;
  const n = Number(raw);
  if (typeof raw !== 'string' || !Number.isInteger(n) || n < 1 || n > bounds.max) {
    throw new AppError(
      'invalid_parameter',
      `Parameter "limit" must be a whole number from 1 to ${bounds.max}.`,
      {
        parameter: 'limit',
      },
    );
  }
  return n;
}

import type { Request, Response } from 'express';

/**
 * `X-Total-Count` and an RFC 8288 `Link` header (first/prev/next/last where they exist), so clients that get
 * a bare JSON array can still page. Links keep every other query parameter of the request.
 */
export function setPagingHeaders(
  req: Request,
  res: Response,
  total: number,
  limit: number,
  offset: number,
): void {
  res.setHeader('X-Total-Count', String(total));
  if (limit <= 0) return;
  const base = `${req.protocol}://${req.get('host')}${req.originalUrl.split('?')[0]}`;
  const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
  const link = (rel: string, at: number) => {
    const params = new URLSearchParams(query);
    params.set('offset', String(at));
    params.set('limit', String(limit));
    return `<${base}?${params.toString()}>; rel="${rel}"`;
  };
  const lastOffset = total > 0 ? Math.floor((total - 1) / limit) * limit : 0;
  const links = [link('first', 0)];
  if (offset > 0) links.push(link('prev', Math.max(0, Math.min(offset - limit, lastOffset))));
  if (offset + limit < total) links.push(link('next', offset + limit));
  links.push(link('last', lastOffset));
  res.setHeader('Link', links.join(', '));
}

/**
 * How old the rows a read answers with are: `X-Data-Age` (whole seconds since the copy was last known to match
 * the spreadsheet; 0 for a local file) on every row read, and `Warning: 110 - "Response is Stale"` when the copy
 * is known or likely out of date (Google unavailable or over quota, a change not loaded yet, or a file answered from
 * its last version while another program saves it).
 */
import type { SourceFreshness } from '../sources/source.ts';
import type { RouteResponse } from './route-table.ts';

export function setFreshnessHeaders(res: RouteResponse, freshness: SourceFreshness): void {
  res.setHeader('X-Data-Age', String(Math.floor(freshness.ageMs / 1000)));
  if (freshness.stale) res.setHeader('Warning', '110 - "Response is Stale"');
}

import { createHash } from 'node:crypto';
import type { CellValue } from '../sources/source.ts';

/** A strong ETag over a row's typed values: any change to any cell of the row changes it. */
export function rowEtag(values: readonly CellValue[]): string {
  return `"${createHash('sha1').update(JSON.stringify(values)).digest('base64url')}"`;
}

/**
 * `If-Match` / `If-None-Match` lists: `*`, or comma-separated tags. RFC 9110: If-Match compares strongly
 * (a weak `W/"..."` tag never matches), If-None-Match weakly.
 */
export function etagMatches(header: string, etag: string, comparison: 'strong' | 'weak'): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((raw) => {
    const tag = raw.trim();
    if (tag.startsWith('W/')) return comparison === 'weak' && tag.slice(2) === etag;
    return tag === etag;
  });
}

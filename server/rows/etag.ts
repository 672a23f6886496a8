import { createHash } from 'node:crypto';
import type { CellValue } from '../sources/source.ts';

/** A strong ETag over a row's typed values: any change to any cell of the row changes it. */
export function rowEtag(values: readonly CellValue[]): string {
  return `"${createHash('sha1').update(JSON.stringify(values)).digest('base64url')}"`;
}

/** `If-Match` / `If-None-Match` lists: `*`, or comma-separated (possibly weak) tags. */
export function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * How big an answer's headers may grow with what they echo of the request. Node's HTTP client (and many others)
 * refuses an answer whose header section is over 16 KiB, and a client can send a URL almost that long: a header
 * that repeats the request (the `Link` header of a listing repeats its query four times, a redirect's `Location`
 * repeats the URL) is written only while the whole header section stays within HEADER_BUDGET_BYTES, half that
 * limit, which leaves room for what is added after it (Content-Type, Content-Length, Date, the status line).
 */
import type { RouteResponse } from './route-table.ts';

export const HEADER_BUDGET_BYTES = 8 * 1024;

/** The bytes of one header line, `name: value\r\n`. */
function lineBytes(name: string, value: string): number {
  return Buffer.byteLength(name) + Buffer.byteLength(value) + 4;
}

/** The bytes of the header section as it stands. */
export function headerSectionBytes(res: RouteResponse): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(res.getHeaders())) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [String(value)]) bytes += lineBytes(name, one);
  }
  return bytes;
}

/**
 * The most bytes the header section can take: each UTF-16 unit of a string is at most three UTF-8 bytes. Cheap
 * (lengths only), and most answers are far within the budget by it, so no byte is counted for them.
 */
function headerSectionBound(res: RouteResponse): number {
  let units = 0;
  const headers = res.getHeaders();
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const one of value) units += name.length + one.length + 4;
    else units += name.length + String(value).length + 4;
  }
  return units * 3;
}

/** Whether the header `name: value` can be added with the header section still within the budget. */
export function fitsHeaderBudget(res: RouteResponse, name: string, value: string): boolean {
  const line = (name.length + value.length + 4) * 3;
  if (headerSectionBound(res) + line <= HEADER_BUDGET_BYTES) return true;
  return headerSectionBytes(res) + lineBytes(name, value) <= HEADER_BUDGET_BYTES;
}

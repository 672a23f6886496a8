/**
 * Fetch every row of a SheetPort tab, one page at a time, and back off politely when rate limited.
 *
 * Usage (Node 22.18+ runs TypeScript directly):
 *
 *   SHEETPORT_URL=http://127.0.0.1:8787 SHEETPORT_KEY=sp_... USER_KEY=... SHEET=Orders \
 *     node examples/fetch-all-rows.ts > orders.json
 *
 * or from your own code:
 *
 *   import { fetchAllRows } from './fetch-all-rows.ts';
 *   const rows = await fetchAllRows({ baseUrl, userKey, sheet: 'Orders', apiKey, pageSize: 500 });
 *
 * Paging: `GET /api/spreadsheets/{userKey}/{sheet}?meta=true&limit=N&offset=M` answers
 * `{"data":[...],"meta":{"total":T,"limit":N,"offset":M}}`; we move `offset` on by the rows received until
 * `meta.total` is reached. (Following the `rel="next"` URL of the `Link` header works just as well.) Paging is
 * by offset, so rows inserted or deleted while you page can shift the pages.
 *
 * Rate limits: a 429 answer is retried with truncated exponential backoff: 500 ms, doubling per retry, capped
 * at 30 s, plus up to 30% random jitter, or the `Retry-After` header (seconds) when that is longer. After 5
 * retries of one request, or when `Retry-After` is longer than `maxRetryAfterSeconds` (the daily quota is
 * spent until midnight UTC), we give up with an error rather than hammer the service or hang for hours.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

export const BASE_DELAY_MS = 500;
export const MAX_DELAY_MS = 30_000;
export const JITTER = 0.3;
export const MAX_RETRIES = 5;

export type Row = Record<string, string | number | boolean | null>;

export interface FetchAllRowsOptions {
  /** `http://127.0.0.1:8787` */
  baseUrl: string;
  /** The connection's userKey (`sheetport connect` prints it; also `user_key` in `GET /v1/spreadsheets`). */
  userKey: string;
  /** Tab name, exactly as in the workbook. */
  sheet: string;
  /** API key, sent as `Authorization: Bearer ...`. */
  apiKey: string;
  /** Rows per request (the service clamps it to 1000). Default 500. */
  pageSize?: number;
  /** Give up instead of waiting when the service asks for a longer pause than this. Default 300 s. */
  maxRetryAfterSeconds?: number;
  /** Injected for tests; default: the global `fetch`, a real timer, `Math.random`. */
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/**
 * How long to wait before retry number `attempt` (0 for the first retry): `500 ms * 2^attempt`, capped at
 * 30 s, plus `random() * 30%` of that; or `Retry-After` when the server asks for longer.
 */
export function backoffDelay(
  attempt: number,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number {
  const capped = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  const withJitter = Math.round(capped * (1 + JITTER * random()));
  const serverAsks = retryAfterSeconds === null ? 0 : retryAfterSeconds * 1000;
  return Math.max(withJitter, serverAsks);
}

/** `Retry-After: 7` -> 7. Absent or not a number of seconds (for example an HTTP date) -> null. */
export function parseRetryAfter(header: string | null): number | null {
  if (header === null || !/^\s*\d+\s*$/.test(header)) return null;
  return Number(header);
}

/** GET a URL, retrying on 429 as described above. Any other non-2xx answer is thrown at once. */
async function getJson(url: string, options: FetchAllRowsOptions): Promise<unknown> {
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => delay(ms));
  const maxRetryAfter = options.maxRetryAfterSeconds ?? 300;
  for (let attempt = 0; ; attempt++) {
    const res = await doFetch(url, { headers: { Authorization: `Bearer ${options.apiKey}` } });
    if (res.ok) return res.json();
    const body = await res.text();
    if (res.status !== 429) throw new Error(`GET ${url} failed: ${res.status} ${body}`);
    if (attempt === MAX_RETRIES) {
      throw new Error(`GET ${url} still rate limited after ${MAX_RETRIES} retries: ${body}`);
    }
    const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
    if (retryAfter !== null && retryAfter > maxRetryAfter) {
      throw new Error(`GET ${url}: rate limited for ${retryAfter} s (quota spent?); not waiting that long.`);
    }
    await sleep(backoffDelay(attempt, retryAfter, options.random));
  }
}

interface Page {
  data: Row[];
  meta: { total: number; limit: number; offset: number };
}

/** Every row of the tab, in sheet order. */
export async function fetchAllRows(options: FetchAllRowsOptions): Promise<Row[]> {
  const base = `${options.baseUrl.replace(/\/+$/, '')}/api/spreadsheets/${encodeURIComponent(options.userKey)}/${encodeURIComponent(options.sheet)}`;
  const pageSize = options.pageSize ?? 500;
  const rows: Row[] = [];
  for (;;) {
    const url = `${base}?meta=true&limit=${pageSize}&offset=${rows.length}`;
    const page = (await getJson(url, options)) as Page;
    rows.push(...page.data);
    // Stop at the end, and on an empty page (rows were deleted while we paged) so we never loop forever.
    if (page.data.length === 0 || rows.length >= page.meta.total) return rows;
  }
}

async function main(): Promise<void> {
  const { SHEETPORT_URL, SHEETPORT_KEY, USER_KEY, SHEET } = process.env;
  if (!SHEETPORT_URL || !SHEETPORT_KEY || !USER_KEY || !SHEET) {
    console.error('Set SHEETPORT_URL, SHEETPORT_KEY, USER_KEY and SHEET (see the comment at the top).');
    process.exitCode = 2;
    return;
  }
  const rows = await fetchAllRows({
    baseUrl: SHEETPORT_URL,
    apiKey: SHEETPORT_KEY,
    userKey: USER_KEY,
    sheet: SHEET,
  });
  console.error(`${rows.length} rows`);
  process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
}

// Run `main` only when this file is the script Node was started with, not when it is imported.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  });
}

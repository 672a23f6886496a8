/**
 * examples/fetch-all-rows.ts: the backoff arithmetic, and the client against real HTTP servers: a tiny
 * node:http server on loopback that serves pages and answers 429 on chosen requests (the real rate limiter
 * is not needed), and once against SheetPort itself, as a library and as a script.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  backoffDelay,
  fetchAllRows,
  MAX_RETRIES,
  parseRetryAfter,
  type Row,
} from '../../examples/fetch-all-rows.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { startHarness } from '../helpers/harness.ts';

const SCRIPT = fileURLToPath(new URL('../../examples/fetch-all-rows.ts', import.meta.url));

describe('backoffDelay', () => {
  it('doubles from 500 ms and caps at 30 s, without jitter when random() is 0', () => {
    const zero = () => 0;
    expect(Array.from({ length: 9 }, (_, attempt) => backoffDelay(attempt, null, zero))).toEqual([
      500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ]);
  });

  it('adds at most 30% jitter on top of the capped delay', () => {
    const one = () => 1;
    expect(Array.from({ length: 8 }, (_, attempt) => backoffDelay(attempt, null, one))).toEqual([
      650, 1300, 2600, 5200, 10400, 20800, 39000, 39000,
    ]);
    expect(backoffDelay(0, null, () => 0.5)).toBe(575);
    for (let i = 0; i < 200; i++) {
      const d = backoffDelay(2, null);
      expect(d).toBeGreaterThanOrEqual(2000);
      expect(d).toBeLessThanOrEqual(2600);
    }
  });

  it('uses Retry-After when it is larger than the backoff, and the backoff when it is not', () => {
    const zero = () => 0;
    expect(backoffDelay(0, 3, zero)).toBe(3000);
    expect(backoffDelay(0, 0, zero)).toBe(500);
    expect(backoffDelay(4, 3, zero)).toBe(8000);
    expect(backoffDelay(4, 9, () => 1)).toBe(10400);
    expect(backoffDelay(4, 11, () => 1)).toBe(11000);
    expect(backoffDelay(8, 120, () => 1)).toBe(120000);
  });

  it('reads Retry-After as whole seconds only', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(' 12 ')).toBe(12);
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('')).toBeNull();
    expect(parseRetryAfter('-1')).toBeNull();
    expect(parseRetryAfter('1.5')).toBeNull();
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT')).toBeNull();
  });
});

/** What the fake server does with request number n (1-based): serve a page, or answer 429/another error. */
type Reply = { status: 429; retryAfter?: string } | { status: 404 } | 'page';

interface FakeServer {
  baseUrl: string;
  /** Every request as `{ path+query, authorization }`, in order. */
  requests: { url: string; authorization: string | undefined }[];
  /** Replies for chosen request numbers; the rest are pages. */
  script: Map<number, Reply>;
  rows: Row[];
  /** `meta.total` to report (default: the real number of rows). */
  reportedTotal: number | null;
  /** The largest `limit` the server honours (it clamps bigger ones, as SheetPort does). */
  maxLimit: number;
}

let fake: FakeServer;
let fakeServer: http.Server;

beforeAll(async () => {
  fakeServer = http.createServer((req, res) => {
    fake.requests.push({ url: req.url ?? '', authorization: req.headers.authorization });
    const reply = fake.script.get(fake.requests.length) ?? 'page';
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(body));
    };
    if (reply !== 'page' && reply.status === 429) {
      const seconds = reply.retryAfter === undefined ? 1 : Number(reply.retryAfter) || 1;
      json(
        429,
        {
          error: {
            code: 'rate_limit_exceeded',
            message: 'Too many requests.',
            limit_type: seconds > 60 ? 'daily' : 'per_second',
            retry_after: seconds,
          },
        },
        reply.retryAfter === undefined ? {} : { 'retry-after': reply.retryAfter },
      );
      return;
    }
    if (reply !== 'page' || url.pathname !== '/api/spreadsheets/uk_1/Orders%20Q1%2F%CE%B2') {
      json(404, { error: { code: 'sheet_not_found', message: 'No such tab.' } });
      return;
    }
    if (url.searchParams.get('meta') !== 'true') {
      json(400, { error: { code: 'invalid_parameter', message: 'This fake serves shape B only.' } });
      return;
    }
    const limit = Math.min(Number(url.searchParams.get('limit')), fake.maxLimit);
    const offset = Number(url.searchParams.get('offset'));
    json(200, {
      data: fake.rows.slice(offset, offset + limit),
      meta: { total: fake.reportedTotal ?? fake.rows.length, limit, offset },
    });
  });
  await new Promise<void>((resolve) => fakeServer.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  fakeServer.closeAllConnections();
  await new Promise<void>((resolve) => fakeServer.close(() => resolve()));
});

function resetFake(rowCount: number): FakeServer {
  const { port } = fakeServer.address() as AddressInfo;
  fake = {
    baseUrl: `http://127.0.0.1:${port}/`,
    requests: [],
    script: new Map(),
    rows: Array.from({ length: rowCount }, (_, i) => ({ id: i + 1, name: `row ${i + 1}` })),
    reportedTotal: null,
    maxLimit: 1000,
  };
  return fake;
}

/** fetchAllRows against the fake server, recording sleeps instead of waiting. */
function run(pageSize: number, random = () => 0) {
  const sleeps: number[] = [];
  const promise = fetchAllRows({
    baseUrl: fake.baseUrl,
    userKey: 'uk_1',
    sheet: 'Orders Q1/β',
    apiKey: 'sp_test',
    pageSize,
    random,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return { promise, sleeps };
}

const offsets = () => fake.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('offset'));

describe('fetchAllRows against a loopback server', () => {
  afterEach(() => {
    fake.script.clear();
  });

  it('pages through every row in order with limit/offset until meta.total', async () => {
    resetFake(23);
    const { promise, sleeps } = run(10);
    expect(await promise).toEqual(fake.rows);
    expect(offsets()).toEqual(['0', '10', '20']);
    expect(fake.requests.every((r) => r.authorization === 'Bearer sp_test')).toBe(true);
    expect(fake.requests[0]!.url).toBe(
      '/api/spreadsheets/uk_1/Orders%20Q1%2F%CE%B2?meta=true&limit=10&offset=0',
    );
    expect(sleeps).toEqual([]);
  });

  it('needs one request for an empty tab and for a tab that fits one page exactly', async () => {
    resetFake(0);
    expect(await run(10).promise).toEqual([]);
    expect(offsets()).toEqual(['0']);
    resetFake(10);
    expect(await run(10).promise).toHaveLength(10);
    expect(offsets()).toEqual(['0']);
  });

  it('follows the rows received when the server clamps the page size', async () => {
    resetFake(25);
    fake.maxLimit = 10;
    expect(await run(500).promise).toEqual(fake.rows);
    expect(offsets()).toEqual(['0', '10', '20']);
  });

  it('stops on an empty page even if meta.total promised more (rows deleted while paging)', async () => {
    resetFake(12);
    fake.reportedTotal = 30;
    expect(await run(10).promise).toEqual(fake.rows);
    // the next offset is the number of rows received so far
    expect(offsets()).toEqual(['0', '10', '12']);
  });

  it('retries a 429 after the backoff delay, honouring a longer Retry-After, and resets per request', async () => {
    resetFake(23);
    fake.script.set(2, { status: 429 }); // page 2, first try: no Retry-After -> 500 ms
    fake.script.set(3, { status: 429, retryAfter: '2' }); // page 2, second try: 2 s beats 1000 ms
    fake.script.set(4, { status: 429, retryAfter: '1' }); // page 2, third try: 2000 ms beats 1 s
    fake.script.set(6, { status: 429, retryAfter: '0' }); // page 3, first try: the count starts over
    const { promise, sleeps } = run(10);
    expect(await promise).toEqual(fake.rows);
    expect(sleeps).toEqual([500, 2000, 2000, 500]);
    expect(offsets()).toEqual(['0', '10', '10', '10', '10', '20', '20']);
  });

  it('adds jitter from the injected random', async () => {
    resetFake(5);
    fake.script.set(1, { status: 429 });
    fake.script.set(2, { status: 429 });
    const { promise, sleeps } = run(10, () => 1);
    expect(await promise).toHaveLength(5);
    expect(sleeps).toEqual([650, 1300]);
  });

  it(`gives up with an error after ${MAX_RETRIES} retries of one request`, async () => {
    resetFake(23);
    for (let i = 2; i <= 20; i++) fake.script.set(i, { status: 429, retryAfter: '1' });
    const { promise, sleeps } = run(10);
    await expect(promise).rejects.toThrow(/still rate limited after 5 retries/);
    expect(sleeps).toEqual([1000, 1000, 2000, 4000, 8000]);
    expect(fake.requests).toHaveLength(1 + 1 + MAX_RETRIES);
  });

  it('gives up at once when Retry-After is longer than it is willing to wait (daily quota)', async () => {
    resetFake(23);
    fake.script.set(1, { status: 429, retryAfter: '36000' });
    const { promise, sleeps } = run(10);
    await expect(promise).rejects.toThrow(/rate limited for 36000 s/);
    expect(sleeps).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it('does not retry other errors', async () => {
    resetFake(23);
    fake.script.set(2, { status: 404 });
    const { promise, sleeps } = run(10);
    await expect(promise).rejects.toThrow(/failed: 404 .*sheet_not_found/);
    expect(sleeps).toEqual([]);
    expect(fake.requests).toHaveLength(2);
  });
});

describe('against SheetPort', () => {
  it('reads the same rows as one big list request, as a library and as a script', async () => {
    const h = await startHarness();
    try {
      const conn = await h.connect(await writePeopleWorkbook(h.dir));
      const expected = await (await h.fetch(`/api/spreadsheets/${conn.userKey}/People?limit=1000`)).json();
      expect(expected).toHaveLength(6);
      const rows = await fetchAllRows({
        baseUrl: h.url,
        userKey: conn.userKey,
        sheet: 'People',
        apiKey: h.key,
        pageSize: 4,
      });
      expect(rows).toEqual(expected);

      const { stdout, stderr } = await promisify(execFile)(process.execPath, [SCRIPT], {
        env: {
          ...process.env,
          SHEETPORT_URL: h.url,
          SHEETPORT_KEY: h.key,
          USER_KEY: conn.userKey,
          SHEET: 'People',
        },
      });
      expect(JSON.parse(stdout)).toEqual(expected);
      expect(stderr).toContain('6 rows');
    } finally {
      await h.close();
    }
  });

  it('prints usage and exits 2 without its environment variables', async () => {
    const env = { ...process.env };
    for (const name of ['SHEETPORT_URL', 'SHEETPORT_KEY', 'USER_KEY', 'SHEET']) delete env[name];
    const failed = await promisify(execFile)(process.execPath, [SCRIPT], { env }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toContain('SHEETPORT_URL');
  });
});

import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { forEachKind, type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

forEachKind((kind, store) => {
  /** A clock the test moves by hand; frozen, so "the first second" is exact however slow the machine is. */
  const NOON = Date.UTC(2026, 0, 15, 12, 0, 0);
  let now = NOON;
  const clock = () => new Date(now);

  let harnesses: Harness[] = [];
  /** A harness; `again` restarts over the records of an earlier one (its data dir, and its database). */
  async function start(again?: Harness): Promise<Harness> {
    const h = await startHarness({
      kind,
      store,
      clock,
      ...(again ? { dataDir: path.join(again.dir, 'data') } : {}),
      ...(again?.databaseUrl ? { databaseUrl: again.databaseUrl } : {}),
    });
    harnesses.push(h);
    return h;
  }
  afterEach(async () => {
    for (const h of harnesses) await h.close().catch(() => {});
    harnesses = [];
    now = NOON;
  });

  /** Many requests at once over separate sockets (no keep-alive queueing in one client). */
  function burst(h: Harness, pathName: string, key: string | null, count: number) {
    const { port } = new URL(h.url);
    const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
    return Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
            (resolve, reject) => {
              const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
              http
                .get({ host: '127.0.0.1', port, path: pathName, headers, agent }, (res) => {
                  let body = '';
                  res.on('data', (c) => (body += c));
                  res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
                })
                .on('error', reject);
            },
          ),
      ),
    );
  }

  describe('rate limits over HTTP', () => {
    it('200 concurrent requests from one Free key: exactly 10 succeed in the first second', async () => {
      const h = await start();
      const conn = (await h.connectBook(await writePeopleWorkbook(h.dir))).connection;
      const key = (await h.context.keys.create({ scope: 'read' })).key;
      const answers = await burst(h, rowsPath(conn, 'People', '?limit=1'), key, 200);
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(190);
      const refused = answers.find((a) => a.status === 429)!;
      const body = JSON.parse(refused.body);
      expect(body.error).toMatchObject({
        code: 'rate_limit_exceeded',
        limit_type: 'per_second',
        retry_after: 1,
      });
      expect(typeof body.error.message).toBe('string');
      expect(body.error.request_id).toBe(refused.headers['x-request-id']);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      // a second later the window has moved on
      now += 1000;
      expect((await h.fetch(rowsPath(conn, 'People'), { auth: key })).status).toBe(200);
      expect(await h.context.usage.today((await h.context.keys.findByKey(key))!.id, now)).toMatchObject({
        requests: 11,
        refusedPerSecond: 190,
      });
    });

    it('sends the burst, daily and IETF headers on every keyed response', async () => {
      const h = await start();
      const key = (await h.context.keys.create({ scope: 'read', plan: 'pro' })).key;
      const res = await h.fetch('/v1/spreadsheets', { auth: key });
      expect(res.status).toBe(200);
      const header = (name: string) => res.headers.get(name);
      expect(header('x-ratelimit-limit')).toBe('100');
      expect(header('x-ratelimit-remaining')).toBe('99');
      expect(header('x-ratelimit-reset')).toBe(String((NOON + 1000) / 1000));
      expect(header('x-ratelimit-daily-limit')).toBe('500000');
      expect(header('x-ratelimit-daily-remaining')).toBe('499999');
      expect(header('x-ratelimit-daily-reset')).toBe(String(Date.UTC(2026, 0, 16) / 1000));
      expect(header('ratelimit-policy')).toBe('"burst";q=100;w=1, "daily";q=500000;w=86400');
      expect(header('ratelimit')).toBe('"burst";r=99;t=1, "daily";r=499999;t=43200');
      // errors count too, and carry the headers
      const missing = await h.fetch('/v1/spreadsheets/nope', { auth: key });
      expect(missing.status).toBe(404);
      expect(missing.headers.get('x-ratelimit-remaining')).toBe('98');
    });

    it('answers the daily limit with seconds until midnight UTC, and keeps the count across a restart', async () => {
      const first = await start();
      const key = (
        await first.context.keys.create({
          scope: 'read',
          plan: 'enterprise',
          perSecond: 50,
          daily: 3,
        })
      ).key;
      for (let i = 0; i < 3; i++)
        expect((await first.fetch('/v1/spreadsheets', { auth: key })).status).toBe(200);
      await first.context.close(); // flushes the counts, as a clean stop does
      const second = await start(first);
      now = NOON + 500;
      const refused = await second.fetch('/v1/spreadsheets', { auth: key });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('43200');
      expect((await refused.json()).error).toMatchObject({ limit_type: 'daily', retry_after: 43200 });
      now = Date.UTC(2026, 0, 16, 0, 0, 1);
      expect((await second.fetch('/v1/spreadsheets', { auth: key })).status).toBe(200);
    });
  });

  describe('public-read connections', () => {
    it('serve row GETs without a key, limited per client address at the Free plan', async () => {
      const h = await start();
      const conn = (await h.connectBook(await writePeopleWorkbook(h.dir))).connection;
      expect((await h.fetch(rowsPath(conn, 'People'), { auth: null })).status).toBe(401);
      await h.context.connections.setPublicRead(conn.spreadsheetId, true);
      const answers = await burst(h, rowsPath(conn, 'People', '/1'), null, 15);
      expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
      expect(answers.filter((a) => a.status === 429)).toHaveLength(5);
      expect(answers[0]!.headers['x-ratelimit-limit']).toBe('10');
      now += 1000;
      const sheets = (await (await h.fetch(`/v1/spreadsheets/${conn.spreadsheetId}`)).json()).sheets;
      expect(
        (await h.fetch(`/v1/sheets/${encodeURIComponent(sheets[0].sheet_id)}/rows`, { auth: null })).status,
      ).toBe(200);
      // never writes, never listings
      const write = await h.fetch(rowsPath(conn, 'People'), {
        auth: null,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"Name":"x"}',
      });
      expect(write.status).toBe(401);
      expect((await h.fetch('/v1/spreadsheets', { auth: null })).status).toBe(401);
      // a key still works and is limited as the key
      expect((await h.fetch(rowsPath(conn, 'People'))).headers.get('x-ratelimit-limit')).toBe('1000000');
    });
  });

  describe('usage', () => {
    it('the admin API reports usage per key, on loopback with the admin token only', async () => {
      const h = await start();
      const { record, key } = await h.context.keys.create({ scope: 'read' });
      for (let i = 0; i < 12; i++) await h.fetch('/v1/spreadsheets', { auth: key });
      const admin = { authorization: `Bearer ${h.context.adminToken}` };
      expect((await h.fetch(`/admin/keys/${record.id}/usage`, { auth: null })).status).toBe(401);
      expect((await h.fetch(`/admin/keys/${record.id}/usage`, { auth: 'sp_wrong' })).status).toBe(401);
      const report = await (
        await h.fetch(`/admin/keys/${record.id}/usage`, { auth: null, headers: admin })
      ).json();
      expect(report).toMatchObject({
        key_id: record.id,
        plan: 'free',
        limits: { per_second: 10, daily: 5000 },
        today: { day: '2026-01-15', requests: 10, refused_per_second: 2, refused_daily: 0, remaining: 4990 },
      });
      expect(report.days).toEqual([
        { day: '2026-01-15', requests: 10, refused_per_second: 2, refused_daily: 0 },
      ]);
      const list = await (await h.fetch('/admin/keys', { auth: null, headers: admin })).json();
      expect(list.data.find((k: { id: string }) => k.id === record.id).today.requests).toBe(10);
    });
  });
});

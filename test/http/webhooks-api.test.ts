import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { forEachKind, type Harness, rowsPath, startHarness, type TestResponse } from '../helpers/harness.ts';
import { startReceiver } from '../helpers/receiver.ts';

forEachKind((kind, store) => {
  let h: Harness;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await h?.close();
  });

  const JSON_HEADERS = { 'content-type': 'application/json' };

  function send(method: string, path: string, body?: unknown, auth?: string): Promise<TestResponse> {
    return h.fetch(path, {
      method,
      ...(body === undefined ? {} : { headers: JSON_HEADERS, body: JSON.stringify(body) }),
      ...(auth === undefined ? {} : { auth }),
    });
  }

  async function setup(options: Parameters<typeof startHarness>[0] = {}): Promise<ConnectionRecord> {
    h = await startHarness({ kind, store, ...options });
    return connectPeople('people.xlsx');
  }

  async function connectPeople(fileName: string): Promise<ConnectionRecord> {
    return (await h.connectBook(await writePeopleWorkbook(h.dir, fileName))).connection;
  }

  async function receiver(
    secret: () => string,
    respond?: Parameters<typeof startReceiver>[1],
  ): Promise<Awaited<ReturnType<typeof startReceiver>>> {
    const r = await startReceiver(secret, respond);
    cleanups.push(r.close);
    return r;
  }

  async function createWebhook(
    conn: ConnectionRecord,
    url: string,
    extra: Record<string, unknown> = {},
  ): Promise<{ webhook_id: string; secret: string }> {
    const res = await send('POST', '/v1/webhooks', {
      url,
      spreadsheet_id: conn.spreadsheetId,
      sheet_name: 'People',
      ...extra,
    });
    expect(res.status).toBe(201);
    return res.json();
  }

  function append(conn: ConnectionRecord, name: string): Promise<TestResponse> {
    return send('POST', rowsPath(conn, 'People'), { Name: name, Age: 1 });
  }

  /** A clock tests move by hand; the worker is driven with drain(). */
  function manualClock() {
    let nowMs = Date.parse('2030-01-01T00:00:00.000Z');
    return { clock: () => new Date(nowMs), advance: (ms: number) => (nowMs += ms) };
  }

  describe('POST /v1/webhooks', () => {
    it('registers a webhook: 201, Location, the secret once and never again', async () => {
      const conn = await setup();
      const res = await send('POST', '/v1/webhooks', {
        url: 'https://hooks.example.com/sheetport#frag',
        spreadsheet_id: conn.spreadsheetId,
        sheet_name: 'People',
        events: ['row.inserted', 'row.deleted'],
      });
      expect(res.status).toBe(201);
      const body = await res.json();
      expect(body).toEqual({
        webhook_id: expect.stringMatching(/^wh_/),
        secret: expect.stringMatching(/^whsec_/),
        url: 'https://hooks.example.com/sheetport',
        spreadsheet_id: conn.spreadsheetId,
        sheet_name: 'People',
        events: ['row.inserted', 'row.deleted'],
        where: null,
        columns: null,
        status: 'active',
        created_at: expect.any(String),
      });
      expect(res.headers.get('location')).toBe(`/v1/webhooks/${body.webhook_id}`);

      const one = await h.fetch(res.headers.get('location')!);
      expect(one.status).toBe(200);
      const oneText = await one.text();
      expect(JSON.parse(oneText)).toEqual({
        webhook_id: body.webhook_id,
        url: 'https://hooks.example.com/sheetport',
        spreadsheet_id: conn.spreadsheetId,
        sheet_name: 'People',
        events: ['row.inserted', 'row.deleted'],
        where: null,
        columns: null,
        status: 'active',
        created_at: body.created_at,
        updated_at: body.created_at,
      });
      const listText = await (await h.fetch('/v1/webhooks')).text();
      for (const text of [oneText, listText]) {
        expect(text).not.toContain(body.secret);
        expect(text).not.toContain('"secret"');
      }
      expect(JSON.parse(listText).data).toHaveLength(1);
    });

    it('subscribes to all four events when events is left out; http to loopback is fine', async () => {
      const conn = await setup();
      const res = await send('POST', '/v1/webhooks', {
        url: 'http://localhost:5678/webhook/abc',
        spreadsheet_id: conn.spreadsheetId,
        sheet_name: 'People',
      });
      expect(res.status).toBe(201);
      expect((await res.json()).events).toEqual([
        'row.inserted',
        'row.updated',
        'row.deleted',
        'bulk.import',
      ]);
    });

    it('validates the body', async () => {
      const conn = await setup();
      const good = {
        url: 'https://hooks.example.com/x',
        spreadsheet_id: conn.spreadsheetId,
        sheet_name: 'People',
      };
      const cases: [string, unknown, number, string, string?][] = [
        [
          'missing url',
          { spreadsheet_id: conn.spreadsheetId, sheet_name: 'People' },
          400,
          'invalid_body',
          'url',
        ],
        ['url not a URL', { ...good, url: 'not a url' }, 400, 'invalid_body', 'url'],
        ['url a number', { ...good, url: 5 }, 400, 'invalid_body', 'url'],
        ['ftp url', { ...good, url: 'ftp://hooks.example.com/x' }, 400, 'invalid_body', 'url'],
        ['http to a public host', { ...good, url: 'http://hooks.example.com/x' }, 400, 'invalid_body', 'url'],
        [
          'cloud metadata',
          { ...good, url: 'https://169.254.169.254/latest/meta-data' },
          400,
          'invalid_body',
          'url',
        ],
        ['LAN address', { ...good, url: 'https://10.0.0.1/hook' }, 400, 'invalid_body', 'url'],
        [
          'credentials in url',
          { ...good, url: 'https://u:p@hooks.example.com/x' },
          400,
          'invalid_body',
          'url',
        ],
        ['unknown event', { ...good, events: ['row.created'] }, 400, 'invalid_body', 'events'],
        ['empty events', { ...good, events: [] }, 400, 'invalid_body', 'events'],
        [
          'duplicate events',
          { ...good, events: ['row.updated', 'row.updated'] },
          400,
          'invalid_body',
          'events',
        ],
        ['events not an array', { ...good, events: 'row.updated' }, 400, 'invalid_body', 'events'],
        [
          'missing spreadsheet_id',
          { url: good.url, sheet_name: 'People' },
          400,
          'invalid_body',
          'spreadsheet_id',
        ],
        [
          'missing sheet_name',
          { url: good.url, spreadsheet_id: conn.spreadsheetId },
          400,
          'invalid_body',
          'sheet_name',
        ],
        ['unknown body key', { ...good, secret: 'mine' }, 400, 'invalid_body', 'secret'],
        ['body an array', [good], 400, 'invalid_body'],
        ['unknown spreadsheet', { ...good, spreadsheet_id: 'wb_nope' }, 404, 'spreadsheet_not_found'],
        ['unknown sheet', { ...good, sheet_name: 'Nope' }, 404, 'sheet_not_found'],
      ];
      for (const [name, body, status, code, field] of cases) {
        const res = await send('POST', '/v1/webhooks', body);
        expect(res.status, name).toBe(status);
        const { error } = await res.json();
        expect(error.code, name).toBe(code);
        if (field !== undefined) expect(error.field, name).toBe(field);
      }
      const none = await h.fetch('/v1/webhooks', { method: 'POST' });
      expect(none.status).toBe(400);
      expect((await (await h.fetch('/v1/webhooks')).json()).data).toEqual([]);
    });

    it('needs a read_write key that may reach the spreadsheet', async () => {
      const conn = await setup();
      const other = await connectPeople('other.xlsx');
      const body = {
        url: 'https://hooks.example.com/x',
        spreadsheet_id: conn.spreadsheetId,
        sheet_name: 'People',
      };
      const readOnly = await h.createKey({ scope: 'read' });
      const res = await send('POST', '/v1/webhooks', body, readOnly);
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe('forbidden');
      const narrow = await h.createKey({ scope: 'read_write', connections: [other.spreadsheetId] });
      const denied = await send('POST', '/v1/webhooks', body, narrow);
      expect(denied.status).toBe(403);
      expect(
        (await send('POST', '/v1/webhooks', { ...body, spreadsheet_id: other.spreadsheetId }, narrow)).status,
      ).toBe(201);
      expect((await send('POST', '/v1/webhooks', body, 'sp_not_a_key')).status).toBe(401);
    });
  });

  describe('managing webhooks', () => {
    it('shows each key only its own webhooks, on spreadsheets it still reaches', async () => {
      const conn = await setup();
      const other = await connectPeople('other.xlsx');
      const mine = await createWebhook(conn, 'https://hooks.example.com/a');
      const theirs = await createWebhook(other, 'https://hooks.example.com/b');
      const narrow = await h.createKey({ scope: 'read_write', connections: [other.spreadsheetId] });
      const readOnly = await h.createKey({ scope: 'read' });

      const ids = async (auth?: string) =>
        (await (await h.fetch('/v1/webhooks', auth === undefined ? {} : { auth })).json()).data.map(
          (w: { webhook_id: string }) => w.webhook_id,
        );
      expect(await ids()).toEqual([mine.webhook_id, theirs.webhook_id]);
      expect(await ids(narrow)).toEqual([]);
      expect(await ids(readOnly)).toEqual([]);
      const narrowOwn = (await (
        await send(
          'POST',
          '/v1/webhooks',
          { url: 'https://hooks.example.com/c', spreadsheet_id: other.spreadsheetId, sheet_name: 'People' },
          narrow,
        )
      ).json()) as { webhook_id: string };
      expect(await ids(narrow)).toEqual([narrowOwn.webhook_id]);
      expect(await ids()).toEqual([mine.webhook_id, theirs.webhook_id]);

      expect((await h.fetch(`/v1/webhooks/${narrowOwn.webhook_id}`, { auth: narrow })).status).toBe(200);
      for (const [method, path] of [
        ['GET', `/v1/webhooks/${mine.webhook_id}`],
        ['GET', `/v1/webhooks/${theirs.webhook_id}`],
        ['PATCH', `/v1/webhooks/${mine.webhook_id}`],
        ['DELETE', `/v1/webhooks/${mine.webhook_id}`],
        ['POST', `/v1/webhooks/${mine.webhook_id}/rotate-secret`],
        ['GET', `/v1/webhooks/${mine.webhook_id}/deliveries`],
      ] as const) {
        const res = await send(method, path, method === 'PATCH' ? { status: 'paused' } : undefined, narrow);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect((await res.json()).error.code).toBe('not_found');
      }
      // A read-only key owns nothing (it cannot register), and changes nothing.
      expect((await h.fetch(`/v1/webhooks/${mine.webhook_id}`, { auth: readOnly })).status).toBe(404);
      expect(
        (await send('PATCH', `/v1/webhooks/${mine.webhook_id}`, { status: 'paused' }, readOnly)).status,
      ).toBe(403);
      expect((await send('DELETE', `/v1/webhooks/${mine.webhook_id}`, undefined, readOnly)).status).toBe(403);
      expect(
        (await send('POST', `/v1/webhooks/${mine.webhook_id}/rotate-secret`, undefined, readOnly)).status,
      ).toBe(403);
      const missing = await h.fetch('/v1/webhooks/wh_nope');
      expect(missing.status).toBe(404);
      expect((await missing.json()).error.code).toBe('not_found');
    });

    it('PATCH changes url, events and status, validated like create', async () => {
      const conn = await setup();
      const { webhook_id } = await createWebhook(conn, 'https://hooks.example.com/a');
      const path = `/v1/webhooks/${webhook_id}`;
      const patched = await send('PATCH', path, {
        url: 'https://hooks.example.com/b',
        events: ['row.deleted'],
      });
      expect(patched.status).toBe(200);
      expect(await patched.json()).toMatchObject({
        webhook_id,
        url: 'https://hooks.example.com/b',
        events: ['row.deleted'],
        status: 'active',
      });
      const paused = await (await send('PATCH', path, { status: 'paused' })).json();
      expect(paused.status).toBe('paused');
      expect(paused).not.toHaveProperty('secret');

      const bad: [unknown, string | undefined][] = [
        [{ status: 'stopped' }, 'status'],
        [{ url: 'http://hooks.example.com/x' }, 'url'],
        [{ url: 'https://169.254.169.254/' }, 'url'],
        [{ events: [] }, 'events'],
        [{ events: ['row.inserted', 'nope'] }, 'events'],
        [{ sheet_name: 'Other' }, 'sheet_name'],
        [{ secret: 'x' }, 'secret'],
        [{}, undefined],
        [['status'], undefined],
      ];
      for (const [body, field] of bad) {
        const res = await send('PATCH', path, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        const { error } = await res.json();
        expect(error.code).toBe('invalid_body');
        if (field !== undefined) expect(error.field, JSON.stringify(body)).toBe(field);
      }
      expect(await (await h.fetch(path)).json()).toMatchObject({
        url: 'https://hooks.example.com/b',
        events: ['row.deleted'],
        status: 'paused',
      });

      // Only subscribed events are queued: an append is not a row.deleted.
      expect((await send('PATCH', path, { status: 'active' })).status).toBe(200);
      expect((await append(conn, 'Eve')).status).toBe(201);
      expect((await (await h.fetch(`${path}/deliveries`)).json()).meta.total).toBe(0);
      expect((await send('DELETE', rowsPath(conn, 'People', '/7'))).status).toBe(200);
      const log = await (await h.fetch(`${path}/deliveries`)).json();
      expect(log.data.map((d: { event: string }) => d.event)).toEqual(['row.deleted']);
    });

    it('a paused webhook queues its notifications and sends them on resume', async () => {
      const conn = await setup();
      h.context.startBackground();
      let secret = '';
      const r = await receiver(() => secret);
      const created = await createWebhook(conn, r.url);
      secret = created.secret;
      const path = `/v1/webhooks/${created.webhook_id}`;
      expect((await send('PATCH', path, { status: 'paused' })).status).toBe(200);

      expect((await append(conn, 'Quiet')).status).toBe(201);
      await h.context.worker.drain();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(r.received).toHaveLength(0);
      const queued = await (await h.fetch(`${path}/deliveries`)).json();
      expect(queued.data).toEqual([
        {
          delivery_id: expect.stringMatching(/^dlv_/),
          event: 'row.inserted',
          state: 'pending',
          attempts: 0,
          next_attempt_at: expect.any(String),
          created_at: expect.any(String),
          completed_at: null,
        },
      ]);

      expect((await send('PATCH', path, { status: 'active' })).status).toBe(200);
      await r.waitFor(1);
      const [got] = r.received;
      expect(got!.signatureOk).toBe(true);
      expect(got!.standardOk).toBe(true);
      expect(got!.headers['x-service-delivery']).toBe(queued.data[0].delivery_id);
      expect(got!.json).toMatchObject({
        webhook_id: created.webhook_id,
        event: 'row.inserted',
        changed_rows: [{ row_index: 7, before: null, after: { Name: 'Quiet', Age: 1 } }],
      });
      await h.context.worker.drain();
      const after = await (await h.fetch(`${path}/deliveries?state=succeeded`)).json();
      expect(after.meta.total).toBe(1);
      expect(after.data[0]).toMatchObject({ state: 'succeeded', attempts: 1, next_attempt_at: null });
      expect(after.data[0].completed_at).toEqual(expect.any(String));
    });

    it('DELETE removes the webhook and its deliveries', async () => {
      const conn = await setup();
      const { webhook_id } = await createWebhook(conn, 'https://hooks.example.com/a');
      expect((await append(conn, 'Gone')).status).toBe(201);
      const log = await (await h.fetch(`/v1/webhooks/${webhook_id}/deliveries`)).json();
      expect(log.meta.total).toBe(1);
      const deliveryId = log.data[0].delivery_id as string;

      const res = await send('DELETE', `/v1/webhooks/${webhook_id}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ deleted: true, webhook_id });
      expect((await h.fetch(`/v1/webhooks/${webhook_id}`)).status).toBe(404);
      expect((await send('DELETE', `/v1/webhooks/${webhook_id}`)).status).toBe(404);
      expect((await h.fetch(`/v1/webhooks/${webhook_id}/deliveries/${deliveryId}`)).status).toBe(404);
      expect(await h.context.deliveries.get(deliveryId)).toBeNull();
      expect((await (await h.fetch('/v1/webhooks')).json()).data).toEqual([]);
    });

    it('rotate-secret returns a new secret once; later deliveries verify with it only', async () => {
      const conn = await setup();
      h.context.startBackground();
      let secret = '';
      const r = await receiver(() => secret);
      const created = await createWebhook(conn, r.url);
      const res = await send('POST', `/v1/webhooks/${created.webhook_id}/rotate-secret`);
      expect(res.status).toBe(200);
      const rotated = await res.json();
      expect(rotated).toEqual({ webhook_id: created.webhook_id, secret: expect.stringMatching(/^whsec_/) });
      expect(rotated.secret).not.toBe(created.secret);
      expect(await (await h.fetch(`/v1/webhooks/${created.webhook_id}`)).text()).not.toContain(
        rotated.secret,
      );
      expect((await send('POST', `/v1/webhooks/${created.webhook_id}/rotate-secret`, { x: 1 })).status).toBe(
        400,
      );
      secret = rotated.secret;

      expect((await append(conn, 'Rotated')).status).toBe(201);
      await r.waitFor(1);
      const [got] = r.received;
      expect(got!.signatureOk).toBe(true);
      expect(got!.standardOk).toBe(true);
      const withOld = createHmac('sha256', Buffer.from(created.secret, 'utf8'))
        .update(got!.body)
        .digest('hex');
      expect(got!.headers['x-service-signature']).not.toBe(withOld);
    });
  });

  describe('delivery log', () => {
    it('pages newest first and filters by state', async () => {
      const { clock } = manualClock();
      const conn = await setup({ clock });
      const r = await receiver(
        () => '',
        (got, res) => {
          const rows = got.json.changed_rows as { after: { Name: string } }[];
          res.statusCode = rows[0]?.after.Name === 'Fail' ? 500 : 200;
          res.end();
        },
      );
      const { webhook_id } = await createWebhook(conn, r.url);
      for (const name of ['A', 'Fail', 'B']) expect((await append(conn, name)).status).toBe(201);
      await h.context.worker.drain();
      expect(r.received).toHaveLength(3);
      const path = `/v1/webhooks/${webhook_id}/deliveries`;

      const all = await h.fetch(path);
      const body = await all.json();
      expect(body.meta).toEqual({ total: 3, limit: 50, offset: 0 });
      expect(all.headers.get('x-total-count')).toBe('3');
      const names = await Promise.all(
        body.data.map(
          async (d: { delivery_id: string }) =>
            JSON.parse((await h.context.deliveries.get(d.delivery_id))!.payload).changed_rows[0].after.Name,
        ),
      );
      expect(names).toEqual(['B', 'Fail', 'A']);
      expect(body.data.map((d: { state: string }) => d.state)).toEqual(['succeeded', 'pending', 'succeeded']);
      expect(body.data[1].next_attempt_at).toBe(new Date(clock().getTime() + 30_000).toISOString());

      const first = await h.fetch(`${path}?limit=2`);
      expect((await first.json()).data.map((d: { delivery_id: string }) => d.delivery_id)).toEqual(
        body.data.slice(0, 2).map((d: { delivery_id: string }) => d.delivery_id),
      );
      expect(first.headers.get('link')).toContain('rel="next"');
      const second = await (await h.fetch(`${path}?limit=2&offset=2`)).json();
      expect(second.data.map((d: { delivery_id: string }) => d.delivery_id)).toEqual([
        body.data[2].delivery_id,
      ]);
      expect(second.meta).toEqual({ total: 3, limit: 2, offset: 2 });
      expect((await (await h.fetch(`${path}?limit=5000`)).json()).meta.limit).toBe(200);

      const pending = await (await h.fetch(`${path}?state=pending`)).json();
      expect(pending.meta.total).toBe(1);
      expect(pending.data[0].delivery_id).toBe(body.data[1].delivery_id);
      expect((await (await h.fetch(`${path}?state=succeeded`)).json()).meta.total).toBe(2);
      expect((await (await h.fetch(`${path}?state=failed`)).json()).data).toEqual([]);
      for (const q of ['state=done', 'limit=-1', 'offset=x', 'state=pending&state=failed']) {
        const res = await h.fetch(`${path}?${q}`);
        expect(res.status, q).toBe(400);
        expect((await res.json()).error.code).toBe('invalid_parameter');
      }
    });

    it('shows the payload and every attempt, and retries at +30 s', async () => {
      const { clock, advance } = manualClock();
      const conn = await setup({ clock });
      let calls = 0;
      let secret = '';
      const r = await receiver(
        () => secret,
        (_got, res) => {
          calls++;
          if (calls === 1) {
            res.statusCode = 500;
            res.end('database is down');
          } else res.end('ok');
        },
      );
      const created = await createWebhook(conn, r.url, { events: ['row.updated'] });
      secret = created.secret;
      expect((await send('PUT', rowsPath(conn, 'People', '/2'), { Age: 26 })).status).toBe(200);
      await h.context.worker.drain();

      const log = await (await h.fetch(`/v1/webhooks/${created.webhook_id}/deliveries`)).json();
      const path = `/v1/webhooks/${created.webhook_id}/deliveries/${log.data[0].delivery_id}`;
      const first = await (await h.fetch(path)).json();
      expect(first).toMatchObject({
        delivery_id: log.data[0].delivery_id,
        webhook_id: created.webhook_id,
        event: 'row.updated',
        state: 'pending',
        attempts: 1,
        next_attempt_at: new Date(clock().getTime() + 30_000).toISOString(),
        completed_at: null,
        payload: {
          webhook_id: created.webhook_id,
          event: 'row.updated',
          spreadsheet_id: conn.spreadsheetId,
          sheet_name: 'People',
          changed_rows: [{ row_index: 2, before: { Name: 'bob', Age: 25 }, after: { Name: 'bob', Age: 26 } }],
        },
        // The receiver is on loopback: the API shows no excerpt and a coarse error (CONTRACT 4).
        attempt_log: [
          {
            attempt: 1,
            trigger: 'auto',
            started_at: clock().toISOString(),
            duration_ms: expect.any(Number),
            status: 500,
            error: 'HTTP 500',
            response_excerpt: null,
          },
        ],
      });
      expect(first.payload).toEqual(JSON.parse(r.received[0]!.body));
      // What was recorded, which the CLI shows: everything, and where the attempt went.
      expect((await h.context.deliveries.attemptsOf(first.delivery_id))[0]).toMatchObject({
        responseExcerpt: 'database is down',
        targetAddress: '127.0.0.1',
        targetKind: 'loopback',
      });

      advance(29_000);
      await h.context.worker.drain();
      expect(r.received).toHaveLength(1);
      advance(1_000);
      await h.context.worker.drain();
      expect(r.received).toHaveLength(2);
      expect(r.received[1]!.headers['x-service-delivery']).toBe(first.delivery_id);
      expect(r.received[1]!.body).toBe(r.received[0]!.body);
      const second = await (await h.fetch(path)).json();
      expect(second).toMatchObject({ state: 'succeeded', attempts: 2, next_attempt_at: null });
      expect(second.completed_at).toBe(clock().toISOString());
      expect(second.attempt_log).toHaveLength(2);
      expect(second.attempt_log[1]).toMatchObject({ attempt: 2, trigger: 'auto', status: 200, error: null });
      expect(second.attempt_log[1].response_excerpt).toBeNull();

      expect((await h.fetch(`/v1/webhooks/${created.webhook_id}/deliveries/dlv_nope`)).status).toBe(404);
    });

    it('replays a failed delivery: 202 and a new attempt with trigger replay', async () => {
      const { clock, advance } = manualClock();
      const conn = await setup({ clock });
      let healthy = false;
      const r = await receiver(
        () => '',
        (_got, res) => {
          res.statusCode = healthy ? 204 : 503;
          res.end();
        },
      );
      const created = await createWebhook(conn, r.url);
      expect((await append(conn, 'Retry')).status).toBe(201);
      await h.context.worker.drain();
      for (const wait of [30_000, 5 * 60_000, 30 * 60_000]) {
        advance(wait - 1);
        await h.context.worker.drain();
        advance(1);
        await h.context.worker.drain();
      }
      expect(r.received).toHaveLength(4);
      advance(24 * 60 * 60_000);
      await h.context.worker.drain();
      expect(r.received).toHaveLength(4);

      const logPath = `/v1/webhooks/${created.webhook_id}/deliveries`;
      const failed = await (await h.fetch(`${logPath}?state=failed`)).json();
      expect(failed.meta.total).toBe(1);
      const deliveryId = failed.data[0].delivery_id as string;
      expect(failed.data[0]).toMatchObject({ state: 'failed', attempts: 4, next_attempt_at: null });
      const detail = await (await h.fetch(`${logPath}/${deliveryId}`)).json();
      expect(detail.attempt_log.map((a: { status: number }) => a.status)).toEqual([503, 503, 503, 503]);

      const readOnly = await h.createKey({ scope: 'read' });
      expect((await send('POST', `${logPath}/${deliveryId}/replay`, undefined, readOnly)).status).toBe(403);
      expect((await send('POST', `${logPath}/dlv_nope/replay`)).status).toBe(404);

      healthy = true;
      const res = await send('POST', `${logPath}/${deliveryId}/replay`);
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ delivery_id: deliveryId, state: 'pending' });
      expect((await (await h.fetch(`${logPath}/${deliveryId}`)).json()).state).toBe('pending');
      await h.context.worker.drain();
      expect(r.received).toHaveLength(5);
      expect(r.received[4]!.headers['x-service-delivery']).toBe(deliveryId);
      const replayed = await (await h.fetch(`${logPath}/${deliveryId}`)).json();
      expect(replayed).toMatchObject({ state: 'succeeded', attempts: 5 });
      expect(replayed.attempt_log[4]).toMatchObject({ attempt: 5, trigger: 'replay', status: 204 });
    });

    it('refuses to replay a delivery that is being sent right now (409)', async () => {
      const conn = await setup();
      const created = await createWebhook(conn, 'https://hooks.example.com/a');
      expect((await append(conn, 'Busy')).status).toBe(201);
      const [claimed] = await h.context.deliveries.claimDue(h.context.now(), 1, 60_000);
      expect(claimed).toBeDefined();
      const res = await send('POST', `/v1/webhooks/${created.webhook_id}/deliveries/${claimed!.id}/replay`);
      expect(res.status).toBe(409);
      expect((await res.json()).error.code).toBe('conflict');
    });

    it('does not show a delivery under another webhook', async () => {
      const conn = await setup();
      const a = await createWebhook(conn, 'https://hooks.example.com/a');
      const b = await createWebhook(conn, 'https://hooks.example.com/b');
      expect((await append(conn, 'Two')).status).toBe(201);
      const log = await (await h.fetch(`/v1/webhooks/${a.webhook_id}/deliveries`)).json();
      const res = await h.fetch(`/v1/webhooks/${b.webhook_id}/deliveries/${log.data[0].delivery_id}`);
      expect(res.status).toBe(404);
      expect(
        (await send('POST', `/v1/webhooks/${b.webhook_id}/deliveries/${log.data[0].delivery_id}/replay`))
          .status,
      ).toBe(404);
    });
  });

  describe('what the delivery log shows of local targets (CONTRACT 4)', () => {
    /** Record one attempt with the given target facts, as the worker does, and read it back through the API. */
    async function attemptAsShown(
      targetKind: string | null,
      targetAddress: string | null,
      outcome: { status: number | null; error: string | null; responseExcerpt: string },
    ) {
      const conn = await setup();
      const created = await createWebhook(conn, 'https://hooks.example.com/a');
      expect((await append(conn, 'Probe')).status).toBe(201);
      const [claimed] = await h.context.deliveries.claimDue(h.context.now(), 1, 60_000);
      await h.context.deliveries.settle(
        claimed!,
        {
          trigger: 'auto',
          startedAt: h.context.now(),
          durationMs: 3,
          ...outcome,
          targetAddress,
          targetKind,
        },
        { state: 'failed', nextAttemptAt: null, completedAt: h.context.now() },
      );
      const res = await h.fetch(`/v1/webhooks/${created.webhook_id}/deliveries/${claimed!.id}`);
      expect(res.status).toBe(200);
      return (await res.json()).attempt_log[0];
    }

    it('shows everything for a public address', async () => {
      const shown = await attemptAsShown('public', '93.184.215.14', {
        status: 500,
        error: 'HTTP 500',
        responseExcerpt: 'stack trace of the receiver',
      });
      expect(shown).toMatchObject({
        status: 500,
        error: 'HTTP 500',
        response_excerpt: 'stack trace of the receiver',
      });
    });

    it('shows a name that did not resolve as it is (no address was reached)', async () => {
      const shown = await attemptAsShown('none', null, {
        status: null,
        error: 'ENOTFOUND',
        responseExcerpt: '',
      });
      expect(shown).toMatchObject({ status: null, error: 'ENOTFOUND', response_excerpt: '' });
    });

    it.each([
      ['loopback', '127.0.0.1', { status: 200, error: null, responseExcerpt: '{"admin":true}' }, null],
      ['loopback', '::1', { status: null, error: 'ECONNREFUSED', responseExcerpt: '' }, 'connection failed'],
      ['private', '10.0.0.7', { status: null, error: 'timeout', responseExcerpt: '' }, 'timed out'],
      [
        'private',
        '192.168.1.9',
        { status: 302, error: 'HTTP 302 (redirects are not followed)', responseExcerpt: 'Moved' },
        'HTTP 302',
      ],
      [
        'loopback',
        '127.0.0.1',
        { status: 200, error: 'ECONNRESET', responseExcerpt: 'partial' },
        'connection failed',
      ],
      [
        'private',
        '10.0.0.7',
        { status: null, error: 'address not allowed: 10.0.0.7', responseExcerpt: '' },
        'connection failed',
      ],
      [
        'link_local',
        '169.254.169.254',
        { status: null, error: 'address not allowed: 169.254.169.254', responseExcerpt: '' },
        'connection failed',
      ],
      // Recorded before targets were classified: treated as local.
      [null, null, { status: 500, error: 'HTTP 500', responseExcerpt: 'secret page' }, 'HTTP 500'],
    ] as const)(
      'for a %s target (%s) hides the excerpt and coarsens the error',
      async (kind, address, outcome, error) => {
        const shown = await attemptAsShown(kind, address, outcome);
        expect(shown).toMatchObject({ status: outcome.status, error, response_excerpt: null });
        expect(JSON.stringify(shown)).not.toContain(address ?? 'no address');
      },
    );

    it('needs a read_write key to read the delivery log', async () => {
      const conn = await setup();
      const created = await createWebhook(conn, 'https://hooks.example.com/a');
      expect((await append(conn, 'Log')).status).toBe(201);
      const path = `/v1/webhooks/${created.webhook_id}/deliveries`;
      const deliveryId = (await (await h.fetch(path)).json()).data[0].delivery_id as string;
      const readOnly = await h.createKey({ scope: 'read' });
      for (const p of [path, `${path}/${deliveryId}`]) {
        const res = await h.fetch(p, { auth: readOnly });
        expect(res.status, p).toBe(403);
        const { error } = await res.json();
        expect(error.code).toBe('forbidden');
        expect(error.message).toBe(
          'This API key is read-only; this route needs a key with scope read_write.',
        );
      }
      // The webhook itself carries nothing from any attempt.
      const webhook = await (await h.fetch(`/v1/webhooks/${created.webhook_id}`)).json();
      expect(Object.keys(webhook).sort()).toEqual([
        'columns',
        'created_at',
        'events',
        'sheet_name',
        'spreadsheet_id',
        'status',
        'updated_at',
        'url',
        'webhook_id',
        'where',
      ]);
    });
  });
});

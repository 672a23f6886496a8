/**
 * The admin routes the dashboard uses, through a real server (startServer over a temp data dir, request log on):
 * keys created once-shown, re-planned and revoked; a connection's tabs, typed preview and public_read; webhooks
 * with /v1's rules; the delivery log across webhooks with filters and replay; the request log by request id;
 * server.json and `sheetport dashboard --no-browser`.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../server/index.ts';
import { createDemoWorkbook } from '../../server/sources/workbook/demo.ts';
import { runCli, succeeded } from '../helpers/cli.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { documentedCodes } from '../helpers/openapi-doc.ts';
import { startReceiver } from '../helpers/receiver.ts';

let dir: string;
let dataDir: string;
let service: RunningServer;
let spreadsheetId: string;

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked by assertions
type Body = any;

async function admin(
  p: string,
  init: { method?: string; body?: unknown; auth?: string } = {},
): Promise<{ status: number; body: Body; headers: Headers }> {
  const res = await fetch(service.url + p, {
    method: init.method ?? 'GET',
    headers: {
      Authorization: `Bearer ${init.auth ?? service.context.adminToken}`,
      ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-admin-api-'));
  dataDir = path.join(dir, 'data');
  service = await startServer({ dataDir, port: 0, host: '127.0.0.1', log: () => {} });
  const file = await writePeopleWorkbook(dir);
  const connected = await admin('/admin/connections', { method: 'POST', body: { location: file } });
  expect(connected.status).toBe(201);
  spreadsheetId = connected.body.spreadsheet_id;
});

afterAll(async () => {
  await service?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('admin keys', () => {
  it('creates a key shown once, changes its plan and revokes it', async () => {
    const created = await admin('/admin/keys', {
      method: 'POST',
      body: { name: 'dash', scope: 'read', plan: 'free', connections: [spreadsheetId] },
    });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sp_/);
    expect(created.body).toMatchObject({
      name: 'dash',
      scope: 'read',
      plan: 'free',
      connections: [spreadsheetId],
    });
    const id = created.body.id;
    const listed = await admin('/admin/keys');
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);

    const read = () =>
      fetch(`${service.url}/v1/spreadsheets/${spreadsheetId}`, {
        headers: { Authorization: `Bearer ${created.body.key}` },
      });
    expect((await read()).status).toBe(200);

    const planned = await admin(`/admin/keys/${id}`, { method: 'PATCH', body: { plan: 'pro' } });
    expect(planned.status).toBe(200);
    expect(planned.body.plan).toBe('pro');
    expect(planned.body.limits.per_second).toBeGreaterThan(10);

    const revoked = await admin(`/admin/keys/${id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    expect((await read()).status).toBe(401);
  });

  it('refuses what it cannot create: an unknown member, a bad plan, an unknown spreadsheet', async () => {
    const extra = await admin('/admin/keys', { method: 'POST', body: { scopes: 'read' } });
    expect(extra.status).toBe(400);
    expect(extra.body.error).toMatchObject({ code: 'invalid_body', field: 'scopes' });
    const plan = await admin('/admin/keys', { method: 'POST', body: { plan: 'gold' } });
    expect(plan.body.error).toMatchObject({ code: 'invalid_body', field: 'plan' });
    const unknown = await admin('/admin/keys', { method: 'POST', body: { connections: ['wb_nope'] } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('spreadsheet_not_found');
    expect((await admin('/admin/keys/key_nope', { method: 'DELETE' })).status).toBe(404);
  });
});

describe('admin connections for the dashboard', () => {
  it('shows a connection with its tabs and a typed preview of a tab', async () => {
    const one = await admin(`/admin/connections/${spreadsheetId}`);
    expect(one.status).toBe(200);
    expect(one.body.sheets.map((s: { name: string }) => s.name)).toContain('People');
    const preview = await admin(`/admin/connections/${spreadsheetId}/sheets/People/preview?limit=2`);
    expect(preview.status).toBe(200);
    expect(preview.body.header.slice(0, 4)).toEqual(['Name', 'Age', 'Joined', 'Active']);
    expect(preview.body.rows).toHaveLength(2);
    expect(preview.body.rows[0].slice(0, 4)).toEqual(['Ann', 31, '2024-03-01', true]);
    expect(preview.body.row_count).toBeGreaterThan(2);
    const missing = await admin(`/admin/connections/${spreadsheetId}/sheets/Nope/preview`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('sheet_not_found');
    expect((await admin(`/admin/connections/${spreadsheetId}/sheets/People/preview?limit=0`)).status).toBe(
      400,
    );
  });

  it("answers the query bar with /v1's own rows, aggregates and errors", async () => {
    const key = (await admin('/admin/keys', { method: 'POST', body: { name: 'query bar', scope: 'read' } }))
      .body.key;
    const sheetId = (await admin(`/admin/connections/${spreadsheetId}`)).body.sheets[0].sheet_id;
    const v1 = async (route: string) => {
      const res = await fetch(`${service.url}/v1/sheets/${encodeURIComponent(sheetId)}/${route}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      return { status: res.status, body: (await res.json()) as Body };
    };
    const mirror = (route: string) => admin(`/admin/connections/${spreadsheetId}/sheets/People/${route}`);
    for (const route of [
      `rows?where=${encodeURIComponent("Age >= 31 or Name starts with 'b'")}&sort=-Age&fields=Name,Age`,
      `aggregate?group_by=Active&metrics=${encodeURIComponent('count,sum(Balance)')}&where=${encodeURIComponent('Age is not null')}`,
      `rows?where=${encodeURIComponent('Age >')}`,
      `rows?where=${encodeURIComponent('Nope = 1')}`,
    ]) {
      const [ours, theirs] = [await mirror(route), await v1(route)];
      expect(ours.status).toBe(theirs.status);
      if (theirs.status === 200) expect(ours.body).toEqual(theirs.body);
      else expect({ ...ours.body.error, request_id: 0 }).toEqual({ ...theirs.body.error, request_id: 0 });
    }
    const rows = await mirror(`rows?where=${encodeURIComponent('Age >= 31')}&sort=-Age&fields=Name`);
    expect(rows.body.data).toEqual([{ Name: 'item10' }, { Name: 'item2' }, { Name: 'Ann' }]);
    expect((await mirror('rows?where=Age%20%3E')).body.error).toMatchObject({
      parameter: 'where',
      position: 5,
    });
  });

  it('previews the text the sheet shows, and formula text, as the row API does with values=', async () => {
    const formatted = await admin(
      `/admin/connections/${spreadsheetId}/sheets/People/preview?limit=1&values=formatted`,
    );
    expect(formatted.body.values).toBe('formatted');
    expect(formatted.body.rows[0].slice(0, 5)).toEqual(['Ann', '31', '3/1/2024', 'TRUE', '$1,000.00']);
    const bad = await admin(`/admin/connections/${spreadsheetId}/sheets/People/preview?values=raw`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', parameter: 'values' });

    // A workbook with formulas: their text in place of their results.
    const demo = path.join(dir, 'demo-preview.xlsx');
    await createDemoWorkbook(demo);
    const connected = await admin('/admin/connections', { method: 'POST', body: { location: demo } });
    const id = connected.body.spreadsheet_id;
    const typed = await admin(`/admin/connections/${id}/sheets/Orders/preview?limit=1`);
    const formulas = await admin(`/admin/connections/${id}/sheets/Orders/preview?limit=1&values=formula`);
    const total = typed.body.header.indexOf('Total');
    expect(typeof typed.body.rows[0][total]).toBe('number');
    expect(formulas.body.rows[0][total]).toMatch(/^=/);
    const key = (await service.context.keys.create({ scope: 'read' })).key;
    const userKey = connected.body.user_key;
    const api = await fetch(`${service.url}/api/spreadsheets/${userKey}/Orders?limit=1&values=formula`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    const [first] = (await api.json()) as Record<string, unknown>[];
    expect(first?.Total).toBe(formulas.body.rows[0][total]);
  });

  it('turns public read on and off', async () => {
    const sheetId = (await admin(`/admin/connections/${spreadsheetId}`)).body.sheets[0].sheet_id;
    const anonymous = () => fetch(`${service.url}/v1/sheets/${encodeURIComponent(sheetId)}/rows`);
    expect((await anonymous()).status).toBe(401);
    const on = await admin(`/admin/connections/${spreadsheetId}`, {
      method: 'PATCH',
      body: { public_read: true },
    });
    expect(on.body.public_read).toBe(true);
    expect((await anonymous()).status).toBe(200);
    await admin(`/admin/connections/${spreadsheetId}`, { method: 'PATCH', body: { public_read: false } });
    expect((await anonymous()).status).toBe(401);
    const bad = await admin(`/admin/connections/${spreadsheetId}`, {
      method: 'PATCH',
      body: { public_read: 'yes' },
    });
    expect(bad.body.error).toMatchObject({ code: 'invalid_body', field: 'public_read' });
  });
});

describe('admin webhooks and the delivery log', () => {
  it('registers, pauses, rotates and deletes with /v1 rules; lists, filters and replays deliveries', async () => {
    let down = true;
    let secret = '';
    const receiver = await startReceiver(
      () => secret,
      (_r, res) => {
        res.statusCode = down ? 500 : 204;
        res.end();
      },
    );
    try {
      const badEvent = await admin('/admin/webhooks', {
        method: 'POST',
        body: {
          url: receiver.url,
          spreadsheet_id: spreadsheetId,
          sheet_name: 'People',
          events: ['row.exploded'],
        },
      });
      expect(badEvent.body.error).toMatchObject({ code: 'invalid_body', field: 'events' });
      const created = await admin('/admin/webhooks', {
        method: 'POST',
        body: {
          url: receiver.url,
          spreadsheet_id: spreadsheetId,
          sheet_name: 'People',
          events: ['row.inserted'],
        },
      });
      expect(created.status).toBe(201);
      secret = created.body.secret;
      const id = created.body.webhook_id;
      expect(
        (await admin('/admin/webhooks')).body.data.map((w: { webhook_id: string }) => w.webhook_id),
      ).toContain(id);

      const key = (await service.context.keys.create({ scope: 'read_write' })).key;
      const userKey = (await service.context.connections.getBySpreadsheetId(spreadsheetId))!.userKey;
      const append = await fetch(`${service.url}/api/spreadsheets/${userKey}/People`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ Name: 'Eve' }),
      });
      expect(append.status).toBe(201);
      await receiver.waitFor(1);

      await expect
        .poll(async () => (await admin(`/admin/deliveries?webhook_id=${id}&state=pending`)).body.meta.total)
        .toBe(1);
      const page = await admin(`/admin/deliveries?event=row.inserted&webhook_id=${id}`);
      expect(page.headers.get('x-total-count')).toBe('1');
      const delivery = page.body.data[0];
      expect(delivery).toMatchObject({ webhook_id: id, event: 'row.inserted', attempts: 1 });
      expect((await admin(`/admin/deliveries?event=row.deleted&webhook_id=${id}`)).body.data).toEqual([]);
      expect((await admin('/admin/deliveries?event=row.exploded')).body.error.parameter).toBe('event');
      expect((await admin('/admin/deliveries?state=lost')).body.error.parameter).toBe('state');

      down = false;
      const replay = await admin(`/admin/webhooks/${id}/deliveries/${delivery.delivery_id}/replay`, {
        method: 'POST',
      });
      expect(replay.status).toBe(202);
      await receiver.waitFor(2);
      await expect
        .poll(
          async () => (await admin(`/admin/webhooks/${id}/deliveries/${delivery.delivery_id}`)).body.state,
        )
        .toBe('succeeded');
      // Each attempt's headers as the receiver got them, signatures included (all but Content-Length).
      const detail = (await admin(`/admin/webhooks/${id}/deliveries/${delivery.delivery_id}`)).body;
      expect(detail.attempt_log).toHaveLength(2);
      detail.attempt_log.forEach((attempt: { request_headers: Record<string, string> }, i: number) => {
        const got = receiver.received[i]!;
        expect(got.signatureOk && got.standardOk).toBe(true);
        const sent = Object.fromEntries(
          Object.entries(attempt.request_headers).map(([k, v]) => [k.toLowerCase(), v]),
        );
        expect(Object.keys(sent).sort()).toEqual(
          [
            'content-type',
            'user-agent',
            'x-service-event',
            'x-service-delivery',
            'x-service-signature',
            'webhook-id',
            'webhook-timestamp',
            'webhook-signature',
          ].sort(),
        );
        for (const [name, value] of Object.entries(sent)) expect(got.headers[name], name).toBe(value);
      });
      // Registered here, it belongs to no API key: /v1 does not show it to any (webhook-ownership.test.ts).
      const v1 = await fetch(`${service.url}/v1/webhooks/${id}/deliveries/${delivery.delivery_id}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(v1.status).toBe(404);

      const paused = await admin(`/admin/webhooks/${id}`, { method: 'PATCH', body: { status: 'paused' } });
      expect(paused.body.status).toBe('paused');
      const rotated = await admin(`/admin/webhooks/${id}/rotate-secret`, { method: 'POST' });
      expect(rotated.body.secret).not.toBe(secret);
      expect((await admin(`/admin/webhooks/${id}`, { method: 'DELETE' })).body).toEqual({
        deleted: true,
        webhook_id: id,
      });
      expect((await admin(`/admin/webhooks/${id}`, { method: 'DELETE' })).status).toBe(404);
    } finally {
      await receiver.close();
    }
  });
});

describe('the request log', () => {
  it('finds a request by its request id, newest first otherwise', async () => {
    const res = await fetch(`${service.url}/v1/spreadsheets`, {
      headers: { Authorization: 'Bearer sp_wrong' },
    });
    const requestId = res.headers.get('x-request-id')!;
    await expect
      .poll(async () => (await admin(`/admin/requests?request_id=${requestId}`)).body.data.length)
      .toBe(1);
    const [line] = (await admin(`/admin/requests?request_id=${requestId}`)).body.data;
    expect(line).toMatchObject({
      request_id: requestId,
      method: 'GET',
      path: '/v1/spreadsheets',
      status: 401,
    });
    const recent = (await admin('/admin/requests?limit=5')).body.data;
    expect(recent.length).toBeLessThanOrEqual(5);
    expect(recent[0].time >= recent.at(-1).time).toBe(true);
  });
});

describe('server.json and sheetport dashboard', () => {
  it('writes server.json (0600) while running, and the CLI prints the dashboard URL with a sign-in code', async () => {
    const file = path.join(dataDir, 'server.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ url: service.url, pid: process.pid });
    const dashboard = ['dashboard', '--no-browser'];
    const { stdout } = succeeded(dashboard, await runCli(dashboard, { dataDir }));
    expect(stdout.trim()).toMatch(new RegExp(`^${service.url}/ui/#code=spc_[A-Za-z0-9_-]{32}$`));
    expect(stdout).not.toContain(service.context.adminToken);
  });

  it('removes server.json at stop, and the CLI then says no server runs', async () => {
    const other = await startServer({
      dataDir: path.join(dir, 'other'),
      port: 0,
      host: '127.0.0.1',
      log: () => {},
    });
    await other.stop();
    await expect(stat(path.join(dir, 'other', 'server.json'))).rejects.toThrow();
    const failed = await runCli(['dashboard', '--no-browser'], { dataDir: path.join(dir, 'other') });
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(/No SheetPort server is running/);
  });
});

describe('the refusals, as docs/openapi.json documents them', () => {
  it('documents the status and code of each refusal of the new routes', async () => {
    const cases: [string, string, string, unknown?][] = [
      ['post', '/admin/keys', '/admin/keys', { plan: 'gold' }],
      ['post', '/admin/keys', '/admin/keys', { connections: ['wb_nope'] }],
      ['patch', '/admin/keys/{id}', '/admin/keys/key_nope', { plan: 'pro' }],
      ['delete', '/admin/keys/{id}', '/admin/keys/key_nope'],
      ['patch', '/admin/connections/{id}', `/admin/connections/${spreadsheetId}`, { public_read: 1 }],
      ['get', '/admin/connections/{id}', '/admin/connections/wb_nope'],
      [
        'get',
        '/admin/connections/{id}/sheets/{sheet}/preview',
        `/admin/connections/${spreadsheetId}/sheets/Nope/preview`,
      ],
      [
        'get',
        '/admin/connections/{id}/sheets/{sheet}/preview',
        `/admin/connections/${spreadsheetId}/sheets/People/preview?limit=x`,
      ],
      ['post', '/admin/webhooks', '/admin/webhooks', { url: 'ftp://x' }],
      [
        'post',
        '/admin/webhooks',
        '/admin/webhooks',
        { url: 'https://example.com/h', spreadsheet_id: 'wb_nope', sheet_name: 'A' },
      ],
      ['patch', '/admin/webhooks/{id}', '/admin/webhooks/wh_nope', { status: 'paused' }],
      ['post', '/admin/webhooks/{id}/rotate-secret', '/admin/webhooks/wh_nope/rotate-secret'],
      ['get', '/admin/deliveries', '/admin/deliveries?state=lost'],
      [
        'post',
        '/admin/webhooks/{id}/deliveries/{deliveryId}/replay',
        '/admin/webhooks/wh_nope/deliveries/dlv_nope/replay',
      ],
      ['get', '/admin/requests', '/admin/requests?limit=0'],
      ['get', '/admin/requests', '/admin/requests?status=ok'],
      ['get', '/admin/requests', '/admin/requests?hide_dashboard=maybe'],
    ];
    const problems: string[] = [];
    for (const [method, template, url, body] of cases) {
      const res = await admin(url, { method: method.toUpperCase(), ...(body !== undefined ? { body } : {}) });
      const codes = documentedCodes(method, template, res.status);
      if (!codes.includes(res.body?.error?.code)) {
        problems.push(
          `${method} ${url} -> ${res.status} ${res.body?.error?.code} (documented: ${codes.join(', ')})`,
        );
      }
    }
    expect(problems).toEqual([]);
  });
});

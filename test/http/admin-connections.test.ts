import { mkdir, readdir, realpath, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeCsv, writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, startHarness, type TestResponse } from '../helpers/harness.ts';
import { expectDocumentedError } from '../helpers/openapi-doc.ts';
import { sqliteOf } from '../helpers/sqlite-of.ts';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

/** An admin request: the admin token, from 127.0.0.1 with a loopback Host (fetch to 127.0.0.1 sends one). */
function admin(method: string, urlPath: string, body?: unknown, token?: string): Promise<TestResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${token ?? h.context.adminToken}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(h.url + urlPath, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

const connect = (body: unknown) => admin('POST', '/admin/connections', body);
const listed = async () => (await (await admin('GET', '/admin/connections')).json()).data;

/** The refusal is the one expected, and docs/openapi.json documents it: status, code and every member. */
async function expectError(
  res: TestResponse,
  status: number,
  error: Record<string, unknown>,
  operation: [template: string, method: string],
): Promise<void> {
  expect(res.status).toBe(status);
  const body = (await res.json()).error;
  expect(body).toMatchObject(error);
  expectDocumentedError(body, status, operation[1], operation[0]);
}

const POST: [string, string] = ['/admin/connections', 'post'];
const DELETE: [string, string] = ['/admin/connections/{id}', 'delete'];

describe('POST /admin/connections', () => {
  it('connects an .xlsx file: 201 with its tabs, then an API key lists it and reads its rows', async () => {
    const file = await writePeopleWorkbook(h.dir);
    const res = await connect({ location: file });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body).toEqual({
      spreadsheet_id: expect.stringMatching(/^wb_/),
      user_key: expect.any(String),
      name: 'people.xlsx',
      source: 'workbook',
      public_read: false,
      created_at: expect.any(String),
      sheets: [
        {
          sheet_id: `${body.spreadsheet_id}~1`,
          name: 'People',
          header: ['Name', 'Age', 'Joined', 'Active', 'Balance', 'Code', 'G', 'Name_2'],
          row_count: 6,
        },
        expect.objectContaining({ name: 'Café ☕ Tab', row_count: 1 }),
      ],
      location: await realpath(file),
      created: true,
    });

    const spreadsheets = await (await h.fetch('/v1/spreadsheets')).json();
    expect(spreadsheets.data.map((s: { spreadsheet_id: string }) => s.spreadsheet_id)).toEqual([
      body.spreadsheet_id,
    ]);
    const rows = await h.fetch(`/api/spreadsheets/${body.user_key}/People`);
    expect(rows.status).toBe(200);
    expect((await rows.json())[0]).toMatchObject({ Name: 'Ann', Age: 31 });

    expect(await listed()).toEqual([
      {
        spreadsheet_id: body.spreadsheet_id,
        user_key: body.user_key,
        name: 'people.xlsx',
        source: 'workbook',
        public_read: false,
        created_at: body.created_at,
        location: body.location,
        read_only: false,
        reading: null,
      },
    ]);
  });

  it('connects a .csv file under the name given, and its rows are readable with a key', async () => {
    const file = await writeCsv(h.dir, 'orders.csv', 'Order,Total\nA-1,12.5\nA-2,3\n');
    const res = await connect({ location: file, kind: 'workbook', name: 'Orders' });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body).toMatchObject({ name: 'Orders', source: 'workbook', created: true });
    expect(body.sheets).toEqual([expect.objectContaining({ header: ['Order', 'Total'], row_count: 2 })]);

    const one = await h.fetch(`/v1/spreadsheets/${body.spreadsheet_id}`);
    expect(one.status).toBe(200);
    const tab = encodeURIComponent(body.sheets[0].name);
    const rows = await (await h.fetch(`/api/spreadsheets/${body.user_key}/${tab}`)).json();
    expect(rows).toEqual([
      { Order: 'A-1', Total: 12.5 },
      { Order: 'A-2', Total: 3 },
    ]);
  });

  it('connecting the same file again (even by another path) is 200, created false, the same ids', async () => {
    const file = await writePeopleWorkbook(h.dir);
    const first = await (await connect({ location: file })).json();
    const againRes = await connect({ location: path.join(h.dir, '.', 'people.xlsx'), name: 'Other name' });
    expect(againRes.status).toBe(200);
    const again = await againRes.json();
    expect(again).toMatchObject({
      spreadsheet_id: first.spreadsheet_id,
      user_key: first.user_key,
      name: 'people.xlsx',
      created: false,
    });
    expect(again.sheets).toEqual(first.sheets);
    expect(await listed()).toHaveLength(1);
  });

  describe('refusals register nothing', () => {
    const cases: [string, () => Promise<unknown>, number, Record<string, unknown>][] = [
      [
        'a missing file: 404 not_found',
        async () => ({ location: path.join(h.dir, 'nope.xlsx') }),
        404,
        { code: 'not_found', parameter: 'location' },
      ],
      [
        'a folder: 400 invalid_parameter',
        async () => {
          const folder = path.join(h.dir, 'folder.xlsx');
          await mkdir(folder);
          return { location: folder };
        },
        400,
        { code: 'invalid_parameter', parameter: 'location' },
      ],
      [
        'a wrong extension: 415 unsupported_media_type',
        async () => ({ location: await writeCsv(h.dir, 'notes.txt', 'a,b\n1,2\n') }),
        415,
        { code: 'unsupported_media_type', parameter: 'location' },
      ],
      [
        'an unreadable workbook: 502 upstream_error with its reason',
        async () => {
          const file = path.join(h.dir, 'damaged.xlsx');
          await writeFile(file, 'not a zip package');
          return { location: file };
        },
        502,
        { code: 'upstream_error', reason: 'not_a_workbook' },
      ],
      [
        'an unknown kind: 400 invalid_parameter',
        async () => ({ location: await writePeopleWorkbook(h.dir), kind: 'ftp' }),
        400,
        { code: 'invalid_parameter', parameter: 'kind' },
      ],
      [
        'no location: 400 invalid_body',
        async () => ({ name: 'x' }),
        400,
        { code: 'invalid_body', field: 'location' },
      ],
      [
        'a misspelt key: 400 invalid_body naming it',
        async () => ({ location: await writePeopleWorkbook(h.dir), nmae: 'Typo' }),
        400,
        { code: 'invalid_body', field: 'nmae' },
      ],
      ['not an object: 400 invalid_body', async () => ['x.xlsx'], 400, { code: 'invalid_body' }],
    ];
    for (const [name, body, status, error] of cases) {
      it(name, async () => {
        await expectError(await connect(await body()), status, error, POST);
        expect(await listed()).toEqual([]);
        expect(await h.context.connections.list()).toEqual([]);
      });
    }

    it('a symlink named .xlsx that leads to a non-workbook gets the answer that file itself gets', async () => {
      const target = await writeCsv(h.dir, 'notes.txt', 'a,b\n1,2\n');
      const link = path.join(h.dir, 'looks-like.xlsx');
      await symlink(target, link);
      const direct = await connect({ location: target });
      const viaLink = await connect({ location: link });
      const answer = async (res: TestResponse) => {
        const { code, parameter } = (await res.json()).error;
        return { status: res.status, code, parameter };
      };
      const expected = { status: 415, code: 'unsupported_media_type', parameter: 'location' };
      expect(await answer(direct)).toEqual(expected);
      expect(await answer(viaLink)).toEqual(expected);
      expect(await listed()).toEqual([]);
    });

    it('a body that is not JSON: 415', async () => {
      const res = await fetch(`${h.url}/admin/connections`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.context.adminToken}`, 'content-type': 'text/plain' },
        body: '/tmp/people.xlsx',
      });
      await expectError(res, 415, { code: 'unsupported_media_type' }, POST);
      expect(await listed()).toEqual([]);
    });
  });
});

describe('the admin guard on /admin/connections', () => {
  it('refuses a wrong token, no token and an API key with 401, and connects nothing', async () => {
    const file = await writePeopleWorkbook(h.dir);
    for (const token of ['wrong', h.key]) {
      const res = await admin('POST', '/admin/connections', { location: file }, token);
      await expectError(res, 401, { code: 'unauthorized' }, POST);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    const none = await fetch(`${h.url}/admin/connections`);
    await expectError(none, 401, { code: 'unauthorized' }, ['/admin/connections', 'get']);
    expect(await h.context.connections.list()).toEqual([]);
  });

  it('refuses a non-loopback Host with 403 even with the admin token', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${h.url}/admin/connections`,
        { headers: { host: 'sheets.example.com', authorization: `Bearer ${h.context.adminToken}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});

describe('DELETE /admin/connections/{id}', () => {
  async function connectedWithWebhook(): Promise<{ id: string; userKey: string; webhookId: string }> {
    const body = await (await connect({ location: await writePeopleWorkbook(h.dir) })).json();
    const webhook = await h.fetch('/v1/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        url: 'http://127.0.0.1:9/hook',
        spreadsheet_id: body.spreadsheet_id,
        sheet_name: 'People',
      }),
    });
    expect(webhook.status).toBe(201);
    return { id: body.spreadsheet_id, userKey: body.user_key, webhookId: (await webhook.json()).webhook_id };
  }

  it('removes a connection without webhooks by its userKey, and what the service remembered of it', async () => {
    const body = await (await connect({ location: await writePeopleWorkbook(h.dir) })).json();
    // A write leaves a change-log entry and a baseline of the tab behind.
    const put = await h.fetch(`/api/spreadsheets/${body.user_key}/People/1`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Name: 'Changed' }),
    });
    expect(put.status).toBe(200);
    const remembered = () =>
      ['change_log', 'tab_baselines', 'tab_checkpoints', 'baseline_redo'].map(
        (table) =>
          sqliteOf(h.context)
            .prepare(`SELECT count(*) FROM ${table} WHERE spreadsheet_id = ?`)
            .pluck()
            .get(body.spreadsheet_id) as number,
      );
    expect(remembered().every((n) => n > 0)).toBe(true);
    // A checkpoint's parts carry no spreadsheet id: they go with their checkpoint (migration 13's trigger).
    const parts = () =>
      sqliteOf(h.context).prepare('SELECT count(*) FROM checkpoint_parts').pluck().get() as number;
    const partsBefore = parts();
    expect(partsBefore).toBeGreaterThan(0);
    // The read kept for a later start (api.md, "Reads kept for the next start").
    const kept = () =>
      readdir(path.join(h.dir, 'data', 'reads')).then((names) => names.filter((n) => n.endsWith('.read')));
    expect(await kept()).toHaveLength(1);
    const res = await admin('DELETE', `/admin/connections/${body.user_key}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      removed: true,
      spreadsheet_id: body.spreadsheet_id,
      name: 'people.xlsx',
      webhooks_removed: 0,
    });
    expect(await listed()).toEqual([]);
    expect((await h.fetch(`/v1/spreadsheets/${body.spreadsheet_id}`)).status).toBe(404);
    expect(remembered()).toEqual([0, 0, 0, 0]);
    expect(parts()).toBeLessThan(partsBefore);
    expect(
      sqliteOf(h.context)
        .prepare(
          'SELECT count(*) FROM checkpoint_parts WHERE checkpoint_id NOT IN (SELECT checkpoint_id FROM tab_checkpoints)',
        )
        .pluck()
        .get(),
    ).toBe(0);
    expect(await kept()).toEqual([]);
  });

  it('is refused with 409 listing the webhook ids while a webhook watches it (force=false too)', async () => {
    const { id, webhookId } = await connectedWithWebhook();
    for (const query of ['', '?force=false']) {
      await expectError(
        await admin('DELETE', `/admin/connections/${id}${query}`),
        409,
        {
          code: 'conflict',
          webhooks: [webhookId],
        },
        DELETE,
      );
    }
    expect((await listed()).map((c: { spreadsheet_id: string }) => c.spreadsheet_id)).toEqual([id]);
    expect((await h.fetch(`/v1/webhooks/${webhookId}`)).status).toBe(200);
  });

  it('with force=true removes the connection and its webhook and says so', async () => {
    const { id, webhookId } = await connectedWithWebhook();
    const res = await admin('DELETE', `/admin/connections/${id}?force=true`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      removed: true,
      spreadsheet_id: id,
      name: 'people.xlsx',
      webhooks_removed: 1,
    });
    expect(await listed()).toEqual([]);
    expect(await h.context.webhooks.get(webhookId)).toBeNull();
    expect((await h.fetch('/v1/webhooks')).status).toBe(200);
    expect((await (await h.fetch('/v1/webhooks')).json()).data).toEqual([]);
  });

  it('a bad force value is 400 invalid_parameter, before the id is even looked at', async () => {
    const { id } = await connectedWithWebhook();
    for (const target of [id, 'wb_nothing']) {
      for (const query of ['?force=yes', '?force=', '?force=true&force=true']) {
        await expectError(
          await admin('DELETE', `/admin/connections/${target}${query}`),
          400,
          {
            code: 'invalid_parameter',
            parameter: 'force',
          },
          DELETE,
        );
      }
    }
    expect(await listed()).toHaveLength(1);
  });

  it('an unknown id is 404 spreadsheet_not_found', async () => {
    await expectError(
      await admin('DELETE', '/admin/connections/wb_nothing'),
      404,
      {
        code: 'spreadsheet_not_found',
      },
      DELETE,
    );
    await expectError(
      await admin('DELETE', '/admin/connections/wb_nothing?force=true'),
      404,
      {
        code: 'spreadsheet_not_found',
      },
      DELETE,
    );
  });
});

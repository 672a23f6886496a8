/**
 * A webhook belongs to the API key that registered it (CONTRACT 4): two keys that both reach one spreadsheet,
 * through real HTTP, a real receiver for each, and the real delivery worker. Key B must not be able to see,
 * change or replay key A's webhook, or it could re-point A's URL to itself, replay a delivery, and capture a
 * notification signed with A's secret.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness, type TestResponse } from '../helpers/harness.ts';
import { startReceiver } from '../helpers/receiver.ts';

let h: Harness;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await h?.close();
});

function send(
  method: string,
  path: string,
  auth: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return h.fetch(path, {
    method,
    auth,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

function admin(method: string, path: string, body?: unknown): Promise<TestResponse> {
  return send(method, path, h.context.adminToken, body);
}

async function receiver(secret: () => string) {
  const r = await startReceiver(secret);
  cleanups.push(r.close);
  return r;
}

async function expectNotFound(res: TestResponse, what: string): Promise<void> {
  expect(res.status, what).toBe(404);
  expect((await res.json()).error.code, what).toBe('not_found');
}

async function twoKeysOnOneSpreadsheet(): Promise<{ conn: ConnectionRecord; keyA: string; keyB: string }> {
  h = await startHarness();
  const { connection } = await h.connectBook(await writePeopleWorkbook(h.dir));
  const keyA = await h.createKey({ scope: 'read_write', connections: [connection.spreadsheetId] });
  const keyB = await h.createKey({ scope: 'read_write' });
  return { conn: connection, keyA, keyB };
}

describe('a webhook belongs to the key that registered it', () => {
  it('key B can neither list, read, change, delete, rotate nor replay key A webhook; A and the admin can', async () => {
    const { conn, keyA, keyB } = await twoKeysOnOneSpreadsheet();
    let secretA = '';
    const receiverA = await receiver(() => secretA);
    const receiverB = await receiver(() => secretA);

    const created = await send('POST', '/v1/webhooks', keyA, {
      url: receiverA.url,
      spreadsheet_id: conn.spreadsheetId,
      sheet_name: 'People',
    });
    expect(created.status).toBe(201);
    const { webhook_id: id, secret } = await created.json();
    secretA = secret;

    // A real notification reaches A's receiver, signed with A's secret.
    expect((await send('POST', rowsPath(conn, 'People'), keyA, { Name: 'Zed', Age: 9 })).status).toBe(201);
    await h.context.worker.drain();
    await receiverA.waitFor(1);
    expect(receiverA.received[0]!.signatureOk).toBe(true);
    const log = await (await send('GET', `/v1/webhooks/${id}/deliveries`, keyA)).json();
    expect(log.meta.total).toBe(1);
    const deliveryId = log.data[0].delivery_id as string;
    // Even its owner's delivery log leaves out the signed headers: they would let it send the request again.
    const detail = await (await send('GET', `/v1/webhooks/${id}/deliveries/${deliveryId}`, keyA)).json();
    expect(detail.attempt_log[0]).toMatchObject({ attempt: 1, status: 200 });
    expect(detail.attempt_log[0]).not.toHaveProperty('request_headers');

    // Key B reaches the same spreadsheet, yet A's webhook does not exist for it.
    expect((await (await send('GET', '/v1/webhooks', keyB)).json()).data).toEqual([]);
    const attempts: [string, string, unknown?][] = [
      ['GET', `/v1/webhooks/${id}`],
      ['PATCH', `/v1/webhooks/${id}`, { url: receiverB.url }],
      ['PATCH', `/v1/webhooks/${id}`, { status: 'paused' }],
      ['POST', `/v1/webhooks/${id}/rotate-secret`],
      ['GET', `/v1/webhooks/${id}/deliveries`],
      ['GET', `/v1/webhooks/${id}/deliveries/${deliveryId}`],
      ['POST', `/v1/webhooks/${id}/deliveries/${deliveryId}/replay`],
      ['DELETE', `/v1/webhooks/${id}`],
    ];
    for (const [method, path, body] of attempts) {
      await expectNotFound(await send(method, path, keyB, body), `key B: ${method} ${path}`);
    }
    // Not through a webhook of its own either.
    const own = await send('POST', '/v1/webhooks', keyB, {
      url: receiverB.url,
      spreadsheet_id: conn.spreadsheetId,
      sheet_name: 'People',
      events: ['row.deleted'],
    });
    expect(own.status).toBe(201);
    const ownId = (await own.json()).webhook_id as string;
    await expectNotFound(
      await send('POST', `/v1/webhooks/${ownId}/deliveries/${deliveryId}/replay`, keyB),
      'key B replaying A delivery under its own webhook',
    );
    expect(
      (await (await send('GET', '/v1/webhooks', keyB)).json()).data.map(
        (w: { webhook_id: string }) => w.webhook_id,
      ),
    ).toEqual([ownId]);

    // Nothing B asked for happened: A's webhook is unchanged, its delivery was sent once, to A only.
    await h.context.worker.drain();
    expect(receiverB.received).toHaveLength(0);
    expect(receiverA.received).toHaveLength(1);
    const asA = await send('GET', `/v1/webhooks/${id}`, keyA);
    expect(asA.status).toBe(200);
    expect(await asA.json()).toMatchObject({ url: receiverA.url, status: 'active' });
    expect(
      (await (await send('GET', '/v1/webhooks', keyA)).json()).data.map(
        (w: { webhook_id: string }) => w.webhook_id,
      ),
    ).toEqual([id]);

    // A still manages it: replays its own delivery, to its own receiver, signed with its own secret.
    expect((await send('POST', `/v1/webhooks/${id}/deliveries/${deliveryId}/replay`, keyA)).status).toBe(202);
    await h.context.worker.drain();
    await receiverA.waitFor(2);
    expect(receiverA.received[1]!.headers['x-service-delivery']).toBe(deliveryId);
    expect(receiverB.received).toHaveLength(0);
    const rotated = await send('POST', `/v1/webhooks/${id}/rotate-secret`, keyA);
    expect(rotated.status).toBe(200);
    secretA = (await rotated.json()).secret;

    // The admin surface sees and manages every webhook, whoever registered it.
    const all = (await (await admin('GET', '/admin/webhooks')).json()).data.map(
      (w: { webhook_id: string }) => w.webhook_id,
    );
    expect(all).toEqual([id, ownId]);
    expect((await admin('GET', `/admin/webhooks/${id}/deliveries/${deliveryId}`)).status).toBe(200);
    expect((await admin('PATCH', `/admin/webhooks/${id}`, { status: 'paused' })).status).toBe(200);
    expect((await admin('DELETE', `/admin/webhooks/${id}`)).status).toBe(200);
    await expectNotFound(await send('GET', `/v1/webhooks/${id}`, keyA), 'deleted by the admin');
  });

  it('a webhook registered on the admin surface belongs to no key', async () => {
    const { conn, keyA } = await twoKeysOnOneSpreadsheet();
    const created = await admin('POST', '/admin/webhooks', {
      url: 'https://hooks.example.com/owner',
      spreadsheet_id: conn.spreadsheetId,
      sheet_name: 'People',
    });
    expect(created.status).toBe(201);
    const { webhook_id: id } = await created.json();
    for (const auth of [keyA, h.key]) {
      expect((await (await send('GET', '/v1/webhooks', auth)).json()).data).toEqual([]);
      await expectNotFound(
        await send('PATCH', `/v1/webhooks/${id}`, auth, { url: 'https://evil.example.com/' }),
        'PATCH',
      );
      await expectNotFound(await send('DELETE', `/v1/webhooks/${id}`, auth), 'DELETE');
    }
    expect((await (await admin('GET', '/admin/webhooks')).json()).data).toHaveLength(1);
  });

  it('an Idempotency-Key answer (secret included) is never given to another key', async () => {
    const { conn, keyA, keyB } = await twoKeysOnOneSpreadsheet();
    const body = {
      url: 'https://hooks.example.com/same',
      spreadsheet_id: conn.spreadsheetId,
      sheet_name: 'People',
    };
    const idem = { 'idempotency-key': 'register-once' };
    const first = await send('POST', '/v1/webhooks', keyA, body, idem);
    expect(first.status).toBe(201);
    const a = await first.json();
    const repeat = await send('POST', '/v1/webhooks', keyA, body, idem);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(await repeat.json()).toEqual(a);

    const other = await send('POST', '/v1/webhooks', keyB, body, idem);
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    const b = await other.json();
    expect(b.webhook_id).not.toBe(a.webhook_id);
    expect(b.secret).not.toBe(a.secret);
    expect(
      (await (await send('GET', '/v1/webhooks', keyB)).json()).data.map(
        (w: { webhook_id: string }) => w.webhook_id,
      ),
    ).toEqual([b.webhook_id]);
  });
});

/**
 * How old a Google-backed read is, and what happens past Google's quota, through the real HTTP path with an
 * injected service clock: `X-Data-Age` on every read; the replica is re-checked (Drive) only past the max age
 * (5 s); while Google is unavailable, or past the per-account read budget, reads come from the replica with
 * `Warning: 110`; past the write budget a write is refused with 503 and Retry-After, nothing written; a revoked
 * grant answers 502 google_login_required. Budgets are set small in the service's configuration, as a user would
 * through SHEETPORT_GOOGLE_READS_PER_MINUTE / _WRITES_PER_MINUTE.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectSpreadsheet } from '../../server/connections/connect.ts';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { type GoogleAccount, startGoogleAccount, storeLogin } from '../helpers/google.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

const GOOGLE = {
  readsPerMinute: 3,
  writesPerMinute: 1,
  // The client the fake's tokens were issued to, so a refresh reaches Google's own answer.
  clientId: 'fake-client',
  clientSecret: 'fake-secret',
};

let account: GoogleAccount;
let h: Harness;
let nowMs = Date.parse('2026-03-02T10:00:00Z');
const advance = (ms: number) => {
  nowMs += ms;
};

beforeAll(async () => {
  account = await startGoogleAccount();
  h = await startHarness({ clock: () => new Date(nowMs), google: { apiRoot: account.fake.url, ...GOOGLE } });
  storeLogin(account.fake, h.context.secrets);
});
afterEach(() => account.fake.switches.clearFailures());
afterAll(async () => {
  await h.close();
  await account.close();
});

async function connected(title: string, rows: (string | number)[][]): Promise<ConnectionRecord> {
  const id = await account.createSpreadsheet(title, ['Item', 'Qty'], rows);
  return (await connectSpreadsheet(h.context.connections, { location: id }, h.context.sourceOptions))
    .connection;
}

const items = async (res: Response) => ((await res.json()) as { Item: string }[]).map((r) => r.Item);

describe('freshness headers on Google-backed reads', () => {
  it('says the age of the copy, and checks Google again only past 5 s', async () => {
    const c = await connected('Pantry', [['Tea', 1]]);
    const first = await h.fetch(rowsPath(c, 'Sheet1'));
    expect(first.headers.get('x-data-age')).toBe('0');
    expect(first.headers.get('warning')).toBeNull();

    await account.replaceContent(
      c.spreadsheetId,
      ['Item', 'Qty'],
      [
        ['Tea', 1],
        ['Rice', 2],
      ],
    );
    advance(3_000);
    const young = await h.fetch(rowsPath(c, 'Sheet1'));
    expect(await items(young)).toEqual(['Tea']); // not checked: the copy is 3 s old
    expect(young.headers.get('x-data-age')).toBe('3');
    expect(young.headers.get('warning')).toBeNull();

    advance(3_000);
    const checked = await h.fetch(rowsPath(c, 'Sheet1'));
    expect(await items(checked)).toEqual(['Tea', 'Rice']);
    expect(checked.headers.get('x-data-age')).toBe('0');

    // The /v1 read and the one-row read carry the same headers.
    advance(2_000);
    const v1 = await h.fetch(`/v1/sheets/${c.spreadsheetId}~0/rows`);
    expect(v1.headers.get('x-data-age')).toBe('2');
    const one = await h.fetch(rowsPath(c, 'Sheet1', '/1'));
    expect(one.headers.get('x-data-age')).toBe('2');
  });

  it.each([503, 429] as const)(
    'while Google answers %i, serves the copy with Warning 110 and its age',
    async (status) => {
      advance(61_000); // a new minute: the read budget (3 a minute here) is free for this case's first read
      const c = await connected(`Shed ${status}`, [['Rake', 1]]);
      await h.fetch(rowsPath(c, 'Sheet1'));
      account.fake.switches.failNext(50, status);
      advance(10_000);
      const res = await h.fetch(rowsPath(c, 'Sheet1'));
      expect(res.status).toBe(200);
      expect(await items(res)).toEqual(['Rake']);
      expect(res.headers.get('warning')).toBe('110 - "Response is Stale"');
      expect(res.headers.get('x-data-age')).toBe('10');
      account.fake.switches.clearFailures();

      advance(6_000);
      const back = await h.fetch(rowsPath(c, 'Sheet1'));
      expect(back.headers.get('warning')).toBeNull();
      expect(back.headers.get('x-data-age')).toBe('0');
    },
    20_000,
  );

  it('past the read budget, serves the copy with the headers instead of reading Google', async () => {
    const c = await connected('Garage', [['v0', 0]]);
    await h.fetch(rowsPath(c, 'Sheet1'));
    advance(61_000); // a new minute: the whole budget (3 reads) is free
    for (let n = 1; n <= 3; n++) {
      await account.replaceContent(c.spreadsheetId, ['Item', 'Qty'], [[`v${n}`, n]]);
      advance(6_000);
      const res = await h.fetch(rowsPath(c, 'Sheet1'));
      expect(await items(res)).toEqual([`v${n}`]);
      expect(res.headers.get('warning')).toBeNull();
    }
    await account.replaceContent(c.spreadsheetId, ['Item', 'Qty'], [['v4', 4]]);
    advance(6_000);
    const over = await h.fetch(rowsPath(c, 'Sheet1'));
    expect(over.status).toBe(200);
    expect(await items(over)).toEqual(['v3']);
    expect(over.headers.get('warning')).toBe('110 - "Response is Stale"');
    expect(over.headers.get('x-data-age')).toBe('6');

    advance(60_000); // the window has moved on: the change is read
    const later = await h.fetch(rowsPath(c, 'Sheet1'));
    expect(await items(later)).toEqual(['v4']);
    expect(later.headers.get('warning')).toBeNull();
  });

  it('past the write budget, a write is refused with 503 and Retry-After, and nothing is written', async () => {
    const c = await connected('Cellar', [['Wine', 6]]);
    await h.fetch(rowsPath(c, 'Sheet1'));
    advance(61_000);
    const post = (item: string) =>
      h.fetch(rowsPath(c, 'Sheet1'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Item: item, Qty: 1 }),
      });
    expect((await post('Cider')).status).toBe(201);
    const refused = await post('Mead');
    expect(refused.status).toBe(503);
    const body = await refused.json();
    expect(body.error.code).toBe('upstream_unavailable');
    expect(refused.headers.get('retry-after')).toBe(String(body.error.retry_after));
    expect(body.error.retry_after).toBeGreaterThanOrEqual(55);
    const values = await account.sheets.spreadsheets.values.get({
      spreadsheetId: c.spreadsheetId,
      range: 'Sheet1!A:A',
    });
    expect(values.data.values?.flat()).toEqual(['Item', 'Wine', 'Cider']);

    advance(61_000);
    expect((await post('Mead')).status).toBe(201);
  });

  it('a revoked grant answers 502 google_login_required, never 401', async () => {
    const c = await connected('Attic', [['Box', 1]]);
    await h.fetch(rowsPath(c, 'Sheet1'));
    const stored = JSON.parse(h.context.secrets.get('google-token:default') ?? '{}');
    account.fake.oauth.revoke(stored.refresh_token);
    advance(6_000);
    const res = await h.fetch(rowsPath(c, 'Sheet1'));
    expect(res.status).toBe(502);
    const body = await res.json();
    expect(body.error).toMatchObject({ code: 'upstream_error', reason: 'google_login_required' });
    expect(body.error.message).toMatch(/sheetport login google/);
    expect(JSON.stringify(body)).not.toContain(stored.refresh_token);
  });
});

/**
 * A Google-backed connection through the real HTTP path: the fake serves Sheets and Drive, the harness's data dir
 * holds the login, and the connection is made by the connect use case (as `sheetport connect google <id>` is).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectSpreadsheet } from '../../server/connections/connect.ts';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { type GoogleAccount, startGoogleAccount, storeLogin } from '../helpers/google.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

let account: GoogleAccount;
let h: Harness;
let people: ConnectionRecord;
let spreadsheetId: string;

beforeAll(async () => {
  account = await startGoogleAccount();
  // The service finds Google where its configuration says, as `sheetport serve` would against the fake.
  h = await startHarness({ google: { apiRoot: account.fake.url } });
  storeLogin(account.fake, h.context.secrets);
  spreadsheetId = await account.createSpreadsheet(
    'Team',
    ['Name', 'Age', 'Member', 'Code', 'Joined', 'Balance', 'Note'],
    [
      ['Ann', 31, true, '007', null, null, 'x'],
      ['Bob', 25.5, false, 'A1', null, null, null],
    ],
  );
  // Dates and currency as a person types them: the cells get a number and a number format.
  await account.sheets.spreadsheets.values.update({
    spreadsheetId,
    range: 'Sheet1!E2:F3',
    valueInputOption: 'USER_ENTERED',
    requestBody: {
      values: [
        ['2024-03-01', '$1,234.50'],
        ['2023-12-24 09:30:00', '12'],
      ],
    },
  });
  const url = `https://docs.google.com/spreadsheets/d/${spreadsheetId}/edit#gid=0`;
  people = (await connectSpreadsheet(h.context.connections, { location: url }, h.context.sourceOptions))
    .connection;
});
afterEach(() => account.fake.switches.clearFailures());
afterAll(async () => {
  await h.close();
  await account.close();
});

describe('a Google spreadsheet over HTTP', () => {
  it('is connected under its own Google id, named by its title', () => {
    expect(people.spreadsheetId).toBe(spreadsheetId);
    expect(people.location).toBe(spreadsheetId);
    expect(people.sourceKind).toBe('google');
    expect(people.name).toBe('Team');
  });

  it('reads values typed per CONTRACT 2: numbers, booleans, text, ISO dates, null; "007" stays text', async () => {
    const res = await h.fetch(rowsPath(people, 'Sheet1'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { Name: 'Ann', Age: 31, Member: true, Code: '007', Joined: '2024-03-01', Balance: 1234.5, Note: 'x' },
      {
        Name: 'Bob',
        Age: 25.5,
        Member: false,
        Code: 'A1',
        Joined: '2023-12-24T09:30:00',
        Balance: 12,
        Note: null,
      },
    ]);
  });

  it('reads the text the sheet shows with values=formatted', async () => {
    const rows = await (await h.fetch(rowsPath(people, 'Sheet1', '?values=formatted'))).json();
    expect(rows[0]).toMatchObject({ Age: '31', Member: 'TRUE', Code: '007', Balance: '$1,234.50' });
    expect(typeof rows[0].Joined).toBe('string');
    expect(rows[0].Joined).not.toBe('');
  });

  it('with Google answering 429 for a while: the write lands once, and reads come from the replica', async () => {
    const before = (await (await h.fetch(rowsPath(people, 'Sheet1'))).json()).length;
    // The append call itself is refused twice (quota), then accepted: retried, and sent only once it is taken.
    account.fake.switches.failNext(2, 429, 'write');
    const res = await h.fetch(rowsPath(people, 'Sheet1'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Name: 'Cid', Age: 40 }),
    });
    expect(res.status).toBe(201);
    const direct = await account.sheets.spreadsheets.values.get({ spreadsheetId, range: 'Sheet1!A:A' });
    expect((direct.data.values ?? []).flat().filter((v) => v === 'Cid')).toHaveLength(1);

    // Google keeps refusing: reads are still answered, from the replica.
    account.fake.switches.failNext(50, 429);
    const read = await h.fetch(rowsPath(people, 'Sheet1'));
    expect(read.status).toBe(200);
    expect(await read.json()).toHaveLength(before + 1);
  });

  it('with Google down right after it accepted an append: the append is acknowledged once and never sent twice', async () => {
    const before = (await (await h.fetch(rowsPath(people, 'Sheet1'))).json()).length;
    // Every call after the append fails past the retries: the read that would answer the write too.
    account.fake.switches.failAfterNextWrite(50, 503);
    const res = await h.fetch(rowsPath(people, 'Sheet1'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Name: 'Dee', Age: 50 }),
    });
    // The row is in the sheet, so the answer says so: a 503 here would have the client send it again.
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ appended: 1 });
    account.fake.switches.clearFailures();
    const direct = await account.sheets.spreadsheets.values.get({ spreadsheetId, range: 'Sheet1!A:A' });
    expect((direct.data.values ?? []).flat().filter((v) => v === 'Dee')).toHaveLength(1);

    // Once Google answers again, the replica catches up with the row (its version moved) on the next reads: at
    // the latest when the copy passes its 5 s age and is checked again.
    let rows: Record<string, unknown>[] = [];
    const deadline = Date.now() + 15_000;
    while (rows.length !== before + 1 && Date.now() < deadline) {
      rows = await (await h.fetch(rowsPath(people, 'Sheet1'))).json();
      if (rows.length !== before + 1) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(rows).toHaveLength(before + 1);
    expect(rows.at(-1)).toMatchObject({ Name: 'Dee', Age: 50 });
  });

  it('with Google answering 503 past the retries: a write answers 503 upstream_unavailable with Retry-After', async () => {
    account.fake.switches.failNext(50, 503);
    const res = await h.fetch(rowsPath(people, 'Sheet1'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Name: 'Never' }),
    });
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe('upstream_unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    account.fake.switches.clearFailures();
    const direct = await account.sheets.spreadsheets.values.get({ spreadsheetId, range: 'Sheet1!A:A' });
    expect((direct.data.values ?? []).flat()).not.toContain('Never');
  });
});

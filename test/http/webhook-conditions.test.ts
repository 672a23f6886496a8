/**
 * Conditional webhooks (docs/api.md, "Conditional webhooks") end to end: registered and changed over
 * `/v1/webhooks`, the tab written through the API (upsert, writes by filter, a batch) and edited outside, and
 * every notification checked as a real receiver got it, signatures verified. Both source kinds, both databases.
 */
import { afterEach, expect, it } from 'vitest';
import { forEachKind, type Harness, startHarness, type TestResponse } from '../helpers/harness.ts';
import { type Received, startReceiver } from '../helpers/receiver.ts';
import { connectTable, type TableBook } from '../helpers/table-book.ts';

const HEADER = ['Order', 'Customer', 'Total', 'Status'];
const ROWS: (string | number | null)[][] = [
  ['ORD-1', 'Ann', 120, 'open'],
  ['ORD-2', 'Bob', 800, 'open'],
  ['ORD-3', 'Cy', 40, 'done'],
  ['ORD-4', 'Dee', null, 'open'],
];

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** What a receiver got: per delivery, its event and the orders of its changed rows (before or after). */
function summary(received: readonly Received[]): string[] {
  return received
    .map((r) => {
      const rows = r.json.changed_rows as {
        before: Record<string, unknown> | null;
        after: Record<string, unknown> | null;
      }[];
      const orders = rows.map((c) => String((c.after ?? c.before)!.Order));
      return `${r.json.event as string} ${orders.join(',')}`;
    })
    .sort();
}

forEachKind((kind, store) => {
  let h: Harness;
  let table: TableBook | undefined;
  let rows: string;
  let spreadsheetId: string;
  const receivers: Receiver[] = [];

  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
    await h?.close();
    await table?.remove();
  });

  async function setup() {
    h = await startHarness({ kind, store });
    table = await connectTable(h, 'Orders', HEADER, ROWS);
    const { book } = table;
    spreadsheetId = book.connection.spreadsheetId;
    rows = `${table.sheet}/rows`;
    h.context.startBackground();
    return book;
  }

  const send = (method: string, url: string, body?: unknown): Promise<TestResponse> =>
    h.fetch(url, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });

  /** A receiver and a webhook on Orders pointing at it, with `condition` in the registration. */
  async function watch(condition: Record<string, unknown>) {
    let secret = '';
    const receiver = await startReceiver(() => secret);
    receivers.push(receiver);
    const res = await send('POST', '/v1/webhooks', {
      url: receiver.url,
      spreadsheet_id: spreadsheetId,
      sheet_name: 'Orders',
      ...condition,
    });
    expect(res.status).toBe(201);
    const created = await res.json();
    secret = created.secret;
    return { receiver, id: created.webhook_id as string, created };
  }

  /** Every queued delivery sent, and a moment for the receivers to have them. */
  async function settle() {
    await h.context.worker.drain();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await h.context.worker.drain();
  }

  const upsert = (values: Record<string, unknown>[]) =>
    send('POST', `${rows}:upsert`, { key: ['Order'], rows: values });

  it('notifies only the rows that match where (before or after) and the updates that touch columns', async () => {
    await setup();
    const big = await watch({ where: 'Total > 500' });
    const status = await watch({ columns: ['Status'] });
    const both = await watch({ where: "Customer in ('Ann', 'Eve')", columns: ['Total'] });
    const all = await watch({});
    expect(big.created).toMatchObject({ where: 'Total > 500', columns: null });
    expect(status.created).toMatchObject({ where: null, columns: ['Status'] });

    // Ann's total rises past 500 (after matches); Cy's status changes (no total over 500 either side).
    expect((await upsert([{ Order: 'ORD-1', Total: 900 }])).status).toBe(200);
    expect((await upsert([{ Order: 'ORD-3', Status: 'open' }])).status).toBe(200);
    // Bob's total falls below 500: he matched before, so he is notified.
    expect((await upsert([{ Order: 'ORD-2', Total: 100 }])).status).toBe(200);
    // A new order for Eve: inserts always pass `columns`; where matches after.
    expect((await upsert([{ Order: 'ORD-5', Customer: 'Eve', Total: 10, Status: 'open' }])).status).toBe(200);
    // Every open order closed in one write: one row.updated per webhook, with only its rows.
    const closed = await send('PATCH', `${rows}?where=${encodeURIComponent("Status = 'open'")}`, {
      Status: 'done',
    });
    expect(closed.status).toBe(200);
    expect((await closed.json()).updated).toBe(5);
    await settle();

    expect(summary(big.receiver.received)).toEqual([
      'row.updated ORD-1',
      'row.updated ORD-1',
      'row.updated ORD-2',
    ]);
    expect(summary(status.receiver.received)).toEqual([
      'row.inserted ORD-5',
      'row.updated ORD-1,ORD-2,ORD-3,ORD-4,ORD-5',
      'row.updated ORD-3',
    ]);
    // Ann's total changed (Customer matches); Eve's insert matches; closing touched no Total.
    expect(summary(both.receiver.received)).toEqual(['row.inserted ORD-5', 'row.updated ORD-1']);
    // Every write's events are those of a write of its size: one row each, then the five closed in one.
    expect(summary(all.receiver.received)).toEqual([
      'row.inserted ORD-5',
      'row.updated ORD-1',
      'row.updated ORD-1,ORD-2,ORD-3,ORD-4,ORD-5',
      'row.updated ORD-2',
      'row.updated ORD-3',
    ]);
    for (const r of [big, status, both, all].flatMap((w) => w.receiver.received)) {
      expect(r.signatureOk && r.standardOk).toBe(true);
    }
    // The payload is the seed's, its rows whole.
    const closing = big.receiver.received.find(
      (r) => (r.json.changed_rows as unknown[]).length === 1 && r.body.includes('"done"'),
    );
    expect(closing?.json.changed_rows).toEqual([
      {
        row_index: 1,
        before: { Order: 'ORD-1', Customer: 'Ann', Total: 900, Status: 'open' },
        after: { Order: 'ORD-1', Customer: 'Ann', Total: 900, Status: 'done' },
      },
    ]);

    // 150 orders in one upsert: one bulk.import for the webhook without a condition; the two over 500 only, as
    // inserts, for the one that asks for them (the qualifying rows decide the event).
    const many = Array.from({ length: 150 }, (_, i) => ({
      Order: `BULK-${i}`,
      Customer: 'Zed',
      Total: i === 7 || i === 70 ? 1000 + i : i,
      Status: 'open',
    }));
    big.receiver.received.length = 0;
    all.receiver.received.length = 0;
    expect((await upsert(many)).status).toBe(200);
    await settle();
    expect(
      all.receiver.received.map((r) => [r.json.event, (r.json.changed_rows as unknown[]).length]),
    ).toEqual([['bulk.import', 150]]);
    expect(summary(big.receiver.received)).toEqual(['row.inserted BULK-7,BULK-70']);

    // A delete always passes `columns`, and where reads the row as it was.
    const gone = await send('DELETE', `${rows}?where=${encodeURIComponent("Order = 'ORD-1'")}`);
    expect(gone.status).toBe(200);
    await settle();
    expect(summary(big.receiver.received)).toContain('row.deleted ORD-1');
    expect(summary(status.receiver.received)).toContain('row.deleted ORD-1');
    expect(summary(both.receiver.received)).toContain('row.deleted ORD-1');
  }, 60_000);

  it('PATCH changes and clears a condition; an edit made in the sheet is held to it too', async () => {
    const book = await setup();
    const w = await watch({ where: "Status = 'done'" });
    const path = `/v1/webhooks/${w.id}`;

    const changed = await send('PATCH', path, { where: 'Total >= 100 and Total <= 200', columns: ['Total'] });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      where: 'Total >= 100 and Total <= 200',
      columns: ['Total'],
    });
    expect(await (await h.fetch(path)).json()).toMatchObject({ where: 'Total >= 100 and Total <= 200' });

    // Outside the sheet: Ann 120 -> 150 (qualifies), Cy's status only (no Total change), Bob 800 -> 900 (no).
    await book.editOutside('Orders', { C2: 150, D4: 'open', C3: 900 });
    await h.context.spreadsheets.of(book.connection).observe();
    await settle();
    expect(summary(w.receiver.received)).toEqual(['row.updated ORD-1']);
    expect(w.receiver.received[0]!.json.changed_rows).toEqual([
      expect.objectContaining({
        before: expect.objectContaining({ Total: 120 }),
        after: expect.objectContaining({ Total: 150 }),
      }),
    ]);

    // Cleared: every change is notified again.
    const cleared = await send('PATCH', path, { where: null, columns: null });
    expect(await cleared.json()).toMatchObject({ where: null, columns: null });
    expect((await upsert([{ Order: 'ORD-3', Status: 'done' }])).status).toBe(200);
    await settle();
    expect(summary(w.receiver.received)).toEqual(['row.updated ORD-1', 'row.updated ORD-3']);
  }, 60_000);

  it('a condition that cannot be read, or names a column the tab lacks, is refused and changes nothing', async () => {
    await setup();
    const register = (condition: Record<string, unknown>) =>
      send('POST', '/v1/webhooks', {
        url: 'https://hooks.example.com/a',
        spreadsheet_id: spreadsheetId,
        sheet_name: 'Orders',
        ...condition,
      });

    const syntax = await register({ where: 'Total >' });
    expect(syntax.status).toBe(400);
    expect((await syntax.json()).error).toMatchObject({ code: 'invalid_body', field: 'where', position: 7 });
    const unknown = await register({ where: "Region = 'east'" });
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error).toMatchObject({
      code: 'unknown_field',
      field: 'Region',
      position: 0,
    });
    const column = await register({ columns: ['Total', 'total'] });
    expect((await column.json()).error).toMatchObject({ code: 'unknown_field', field: 'total' });
    for (const bad of [
      { where: 5 },
      { columns: 'Total' },
      { columns: ['Total', 'Total'] },
      { columns: [''] },
    ]) {
      const res = await register(bad);
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe('invalid_body');
    }
    const hostile = await register({ where: `${'('.repeat(5000)}Total > 1` });
    expect(hostile.status).toBe(400);
    expect((await (await h.fetch('/v1/webhooks')).json()).data).toEqual([]);

    const w = await watch({ where: 'Total > 1' });
    const patched = await send('PATCH', `/v1/webhooks/${w.id}`, { where: 'Nope = 1' });
    expect(patched.status).toBe(400);
    expect(await (await h.fetch(`/v1/webhooks/${w.id}`)).json()).toMatchObject({
      where: 'Total > 1',
      columns: null,
    });
    // A blank where is no where.
    const blank = await send('PATCH', `/v1/webhooks/${w.id}`, { where: '  ' });
    expect(await blank.json()).toMatchObject({ where: null, columns: null });
  }, 60_000);
});

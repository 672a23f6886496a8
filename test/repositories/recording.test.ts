/**
 * The change recording, the same on both databases: two holders of one database (SQLite: two processes sharing
 * the data dir; PostgreSQL: two instances), each with its own in-memory "previous" (the real recorder plans each
 * recording). A version recorded by one is recorded by no other (nothing is notified twice, also when both
 * record it at once); one whose previous is older than what the other recorded records only what is new since;
 * every change of a tab has an instant of its own and a webhook's payload timestamps increase strictly; a
 * renamed tab renames its webhooks; a failure inside the transaction leaves nothing of the change.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeRecorder } from '../../server/changes/recorder.ts';
import type { CellValue, SpreadsheetSnapshot } from '../../server/sources/source.ts';
import { DEFAULT_EVENT_RULES } from '../../server/webhooks/events.ts';
import { CHANGE_STORE_KINDS, type ChangeStores, openChangeStores } from '../helpers/change-stores.ts';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

/** One clock for both holders, a millisecond a reading: instants and timestamps never tie by accident. */
let clock = Date.UTC(2026, 2, 1);

interface Holder {
  stores: ChangeStores;
  record(before: SpreadsheetSnapshot | null, after: SpreadsheetSnapshot): Promise<void>;
}

function holder(stores: ChangeStores, now: () => number = () => clock++): Holder {
  open.push(stores);
  const recorder = new ChangeRecorder({
    recording: stores.changeRecording,
    now,
    rules: DEFAULT_EVENT_RULES,
    onQueued: () => {},
  });
  return { stores, record: (before, after) => recorder.record('wb_1', before, after) };
}

let versions = 0;
function snapshot(names: string[], tabName = 'People'): SpreadsheetSnapshot {
  const typed: CellValue[][] = names.map((n) => [n]);
  return {
    title: 't',
    version: `v${++versions}`,
    tabs: [{ sourceSheetId: '1', name: tabName, header: ['Name'], headerRow: 1, typed, formatted: [] }],
  };
}

/** What was notified, oldest first: each delivery's event and the names its rows have after the change. */
async function notified(stores: ChangeStores, webhookId: string): Promise<[string, ...string[]][]> {
  const { data } = await stores.deliveries.page(webhookId, { limit: 100, offset: 0 });
  return data.reverse().map((d) => {
    const body = JSON.parse(d.payload) as { event: string; changed_rows: { after: { Name: string } }[] };
    return [body.event, ...body.changed_rows.map((r) => r.after.Name)];
  });
}

/** Each notification's payload timestamp, oldest first. */
async function timestamps(stores: ChangeStores, webhookId: string): Promise<number[]> {
  const { data } = await stores.deliveries.page(webhookId, { limit: 100, offset: 0 });
  return data.reverse().map((d) => Date.parse((JSON.parse(d.payload) as { timestamp: string }).timestamp));
}

describe.each(CHANGE_STORE_KINDS)('the change recording on %s', (kind) => {
  const two = async (): Promise<[Holder, Holder]> => {
    const a = holder(await openChangeStores(kind));
    return [a, holder(await a.stores.another())];
  };
  const webhookOn = (stores: ChangeStores) =>
    stores.addWebhook({ spreadsheetId: 'wb_1', sourceSheetId: '1', sheetName: 'People' });

  it('records a version once, whichever holder sees it, also when both record it at once', async () => {
    const [a, b] = await two();
    const webhook = await webhookOn(a.stores);
    const v1 = snapshot(['Ada']);
    await a.record(null, v1);
    await b.record(null, v1);
    const v2 = snapshot(['Ada', 'Bob']);
    await a.record(v1, v2);
    await b.record(v1, v2);
    const v3 = snapshot(['Ada', 'Bob', 'Cy']);
    await Promise.all([a.record(v2, v3), b.record(v2, v3)]);

    expect(await notified(b.stores, webhook)).toEqual([
      ['row.inserted', 'Bob'],
      ['row.inserted', 'Cy'],
    ]);
    const feed = await b.stores.changeLog.page('wb_1', '1', 0, 100, 0);
    expect(feed.data.map((e) => [e.change, e.values])).toEqual([
      ['inserted', { Name: 'Bob' }],
      ['inserted', { Name: 'Cy' }],
    ]);
    const loaded = (await a.stores.baselines.load('wb_1')).get('1')!;
    expect(loaded).toMatchObject({ typed: [['Ada'], ['Bob'], ['Cy']], sourceVersion: v3.version });
  });

  it('a holder whose previous is older than what the other recorded records only the rows new since', async () => {
    const [a, b] = await two();
    const webhook = await webhookOn(a.stores);
    const v1 = snapshot(['Ada', 'Bob']);
    await a.record(null, v1);
    await b.record(null, v1);
    // A records an append; B, still holding v1 in memory, then sees a later version with one more change.
    const v2 = snapshot(['Ada', 'Bob', 'Cy']);
    await a.record(v1, v2);
    const v3 = snapshot(['Ada', 'Bobby', 'Cy', 'Dee']);
    await b.record(v1, v3);
    // And A, whose previous (v2) is now stale in turn, records the next one.
    const v4 = snapshot(['Ada', 'Bobby', 'Cy', 'Dee', 'Eve']);
    await a.record(v2, v4);

    const { data } = await a.stores.changeLog.page('wb_1', '1', 0, 100, 0);
    expect(data.map((e) => [e.row_index, e.change, e.values])).toEqual([
      [3, 'inserted', { Name: 'Cy' }],
      [2, 'updated', { Name: 'Bobby' }],
      [4, 'inserted', { Name: 'Dee' }],
      [5, 'inserted', { Name: 'Eve' }],
    ]);
    expect(await notified(a.stores, webhook)).toEqual([
      ['row.inserted', 'Cy'],
      ['row.inserted', 'Dee'],
      ['row.updated', 'Bobby'],
      ['row.inserted', 'Eve'],
    ]);
    expect((await b.stores.baselines.load('wb_1')).get('1')!.typed).toEqual(v4.tabs[0]!.typed);
  });

  it('gives each change of a tab its own instant and each payload its own timestamp, within one millisecond', async () => {
    const [a, b] = await two();
    const webhook = await webhookOn(a.stores);
    // A stopped clock: every recording at the same millisecond, from either holder.
    const still = () => Date.UTC(2026, 3, 1);
    const [x, y] = [holder(a.stores, still), holder(b.stores, still)];
    open.splice(-2); // a and b close them
    const v1 = snapshot(['Ada']);
    await x.record(null, v1);
    await y.record(null, v1);
    // One change, two notifications (an update and an insertion); then one from the other holder.
    const v2 = snapshot(['Ann', 'Bob', 'Cy']);
    await x.record(v1, v2);
    const v3 = snapshot(['Ann', 'Bob', 'Cy', 'Dee']);
    await y.record(v2, v3);

    const { data } = await a.stores.changeLog.page('wb_1', '1', 0, 100, 0);
    expect(data.map((e) => e.updatedAt - still())).toEqual([0, 0, 0, 1]);
    expect((await timestamps(b.stores, webhook)).map((t) => t - still())).toEqual([0, 1, 2]);
  });

  it('renames the webhooks of a renamed tab', async () => {
    const [a] = await two();
    const webhook = await webhookOn(a.stores);
    const v1 = snapshot(['Ada']);
    await a.record(null, v1);
    await a.record(v1, snapshot(['Ada', 'Bob'], 'Team'));
    expect(await a.stores.rows(`SELECT sheet_name FROM webhooks WHERE id = '${webhook}'`)).toEqual([
      { sheet_name: 'Team' },
    ]);
    expect((await a.stores.changeLog.page('wb_1', '1', 0, 10, 0)).total).toBe(1);
  });

  it('a failure inside the recording transaction records nothing of the change', async () => {
    const [a] = await two();
    const webhook = await webhookOn(a.stores);
    const v1 = snapshot(['Ada']);
    await a.record(null, v1);
    const v2 = snapshot(['Ada', 'Bob']);
    await a.record(v1, v2);
    const state = () =>
      Promise.all(
        [
          'SELECT * FROM change_log ORDER BY seq',
          'SELECT id, payload FROM deliveries ORDER BY created_at, id',
          'SELECT * FROM tab_baselines',
          'SELECT source_sheet_id, content FROM baseline_redo ORDER BY seq',
          'SELECT id, sheet_name, last_timestamp_ms FROM webhooks',
        ].map((sql) => a.stores.rows(sql)),
      );
    const before = await state();
    // The baseline's row edits are stored last: refusing them must undo the entries and the outbox too.
    await refuseRedo(a.stores, true);
    const v3 = snapshot(['Ada', 'Bob', 'Cy']);
    await expect(a.record(v2, v3)).rejects.toThrow(/refused for the test/);
    expect(await state()).toEqual(before);

    await refuseRedo(a.stores, false);
    await a.record(v2, v3);
    expect(await notified(a.stores, webhook)).toEqual([
      ['row.inserted', 'Bob'],
      ['row.inserted', 'Cy'],
    ]);
  });
});

/** A trigger that makes every insert into baseline_redo fail (each database's own SQL), or its removal. */
async function refuseRedo(stores: ChangeStores, refuse: boolean): Promise<void> {
  if (stores.kind === 'sqlite') {
    await stores.rows(
      refuse
        ? "CREATE TRIGGER refuse BEFORE INSERT ON baseline_redo BEGIN SELECT RAISE(ABORT, 'refused for the test'); END"
        : 'DROP TRIGGER refuse',
    );
    return;
  }
  if (!refuse) {
    await stores.rows('DROP TRIGGER refuse ON baseline_redo');
    return;
  }
  await stores.rows(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'refused for the test'; END $$`);
  await stores.rows(
    'CREATE TRIGGER refuse BEFORE INSERT ON baseline_redo FOR EACH ROW EXECUTE FUNCTION refuse()',
  );
}

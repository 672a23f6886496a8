/**
 * Several instances recording one spreadsheet on one real PostgreSQL database, each with its own pool and its own
 * in-memory "previous" (the real recorder plans each recording): a version recorded by one instance is recorded
 * by no other (nothing is notified twice, also when both record it at once), and an instance whose previous is
 * older than what another one recorded records only what is new since. A recording is one transaction (a failure
 * in it leaves nothing), renames the webhooks of a renamed tab, and goes with its connection.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeRecorder } from '../../server/changes/recorder.ts';
import type { CellValue, SpreadsheetSnapshot } from '../../server/sources/source.ts';
import { readRecordedPayload } from '../../server/store-pg/channels.ts';
import { PgListener } from '../../server/store-pg/listener.ts';
import { DEFAULT_EVENT_RULES } from '../../server/webhooks/events.ts';
import { type ChangeStores, openChangeStores } from '../helpers/change-stores.ts';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

let clock = Date.UTC(2026, 2, 1);
interface Instance {
  stores: ChangeStores;
  record(before: SpreadsheetSnapshot | null, after: SpreadsheetSnapshot): Promise<void>;
}

function instance(stores: ChangeStores): Instance {
  open.push(stores);
  const recorder = new ChangeRecorder({
    recording: stores.changeRecording,
    now: () => clock++,
    rules: DEFAULT_EVENT_RULES,
    onQueued: () => {},
  });
  return { stores, record: (before, after) => recorder.record('wb_1', before, after) };
}

async function twoInstances(): Promise<[Instance, Instance]> {
  const a = instance(await openChangeStores('postgres'));
  const b = instance(await openChangeStores('postgres', { databaseUrl: a.stores.databaseUrl! }));
  return [a, b];
}

let versions = 0;
function snapshot(names: string[]): SpreadsheetSnapshot {
  const typed: CellValue[][] = names.map((n) => [n]);
  return {
    title: 't',
    version: `v${++versions}`,
    tabs: [{ sourceSheetId: '1', name: 'People', header: ['Name'], headerRow: 1, typed, formatted: [] }],
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

describe('recording from several instances', () => {
  it('a version one instance recorded is recorded by no other, also when both record it at once', async () => {
    const [a, b] = await twoInstances();
    const webhook = await a.stores.addWebhook({
      spreadsheetId: 'wb_1',
      sourceSheetId: '1',
      sheetName: 'People',
    });
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

  it('an instance whose previous is older than what another recorded records only the rows new since', async () => {
    const [a, b] = await twoInstances();
    const webhook = await a.stores.addWebhook({
      spreadsheetId: 'wb_1',
      sourceSheetId: '1',
      sheetName: 'People',
    });
    const recorded: (string | null)[] = [];
    const listener = new PgListener(a.stores.databaseUrl!);
    open.push(listener);
    listener.on('sheetport_recorded', (id) => recorded.push(id));
    await listener.start();

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
    // Each recorded change of the tab has an instant of its own, whichever instance recorded it.
    const instants = [...new Set(data.map((e) => e.updatedAt))];
    expect(instants).toHaveLength(3);
    expect(instants).toEqual([...instants].sort((x, y) => x - y));
    expect(await notified(a.stores, webhook)).toEqual([
      ['row.inserted', 'Cy'],
      ['row.inserted', 'Dee'],
      ['row.updated', 'Bobby'],
      ['row.inserted', 'Eve'],
    ]);
    expect((await b.stores.baselines.load('wb_1')).get('1')!.typed).toEqual(v4.tabs[0]!.typed);
    // Every instance hears of each recording once it committed (B's first sight of v1 recorded nothing).
    await expect.poll(() => recorded.length, { timeout: 2000 }).toBe(4);
    // Each says which spreadsheet, at which version: an instance holding another version reads it again.
    expect(recorded.map((p) => readRecordedPayload(p ?? ''))).toEqual(
      ['v4', 'v5', 'v6', 'v7'].map((version) => ({ spreadsheetId: 'wb_1', version })),
    );
  });

  it('a failure inside the recording transaction records nothing of the change', async () => {
    const [a] = await twoInstances();
    const webhook = await a.stores.addWebhook({
      spreadsheetId: 'wb_1',
      sourceSheetId: '1',
      sheetName: 'People',
    });
    const v1 = snapshot(['Ada']);
    await a.record(null, v1);
    const v2 = snapshot(['Ada', 'Bob']);
    await a.record(v1, v2);
    const state = () =>
      Promise.all(
        [
          'SELECT * FROM change_log ORDER BY seq',
          'SELECT id, payload FROM deliveries ORDER BY seq',
          'SELECT * FROM tab_baselines',
          'SELECT source_sheet_id, content FROM baseline_redo ORDER BY seq',
          'SELECT * FROM recorded_versions',
          'SELECT id, sheet_name, last_timestamp_ms FROM webhooks',
        ].map((sql) => a.stores.rows(sql)),
      );
    const before = await state();
    // The baseline's row edits are stored last: refusing them must undo the entries and the outbox too.
    await a.stores.rows(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused for the test'; END $$`);
    await a.stores.rows(
      'CREATE TRIGGER refuse BEFORE INSERT ON baseline_redo FOR EACH ROW EXECUTE FUNCTION refuse()',
    );
    const v3 = snapshot(['Ada', 'Bob', 'Cy']);
    await expect(a.record(v2, v3)).rejects.toThrow(/refused for the test/);
    expect(await state()).toEqual(before);

    await a.stores.rows('DROP TRIGGER refuse ON baseline_redo');
    await a.record(v2, v3);
    expect(await notified(a.stores, webhook)).toEqual([
      ['row.inserted', 'Bob'],
      ['row.inserted', 'Cy'],
    ]);
  });

  it('a renamed tab renames its webhooks; a removed connection takes what was recorded of it', async () => {
    const [a] = await twoInstances();
    const webhook = await a.stores.addWebhook({
      spreadsheetId: 'wb_1',
      sourceSheetId: '1',
      sheetName: 'People',
    });
    const registry: (string | null)[] = [];
    const listener = new PgListener(a.stores.databaseUrl!);
    open.push(listener);
    listener.on('sheetport_registry', (p) => registry.push(p));
    await listener.start();
    const v1 = snapshot(['Ada']);
    await a.record(null, v1);
    const v2 = snapshot(['Ada', 'Bob']);
    v2.tabs[0]!.name = 'Team';
    await a.record(v1, v2);
    expect(await a.stores.rows(`SELECT sheet_name FROM webhooks WHERE id = '${webhook}'`)).toEqual([
      { sheet_name: 'Team' },
    ]);
    // Instances that cache the registry read it again.
    await expect.poll(() => registry, { timeout: 2000 }).toEqual(['']);
    expect((await a.stores.changeLog.page('wb_1', '1', 0, 10, 0)).total).toBe(1);

    await a.stores.rows(
      "INSERT INTO connections (id, user_key, name, source_kind, location, created_at) VALUES ('wb_1', 'uk_1', 'x', 'workbook', '/x.xlsx', '2026-01-01T00:00:00Z')",
    );
    await a.stores.rows("DELETE FROM connections WHERE id = 'wb_1'");
    expect((await a.stores.changeLog.page('wb_1', '1', 0, 10, 0)).total).toBe(0);
    expect((await a.stores.baselines.load('wb_1')).size).toBe(0);
    expect(await a.stores.rows('SELECT * FROM recorded_versions')).toEqual([]);
  });
});

/**
 * What PostgreSQL's recording adds to the rules both databases share (test/repositories/recording.test.ts):
 * every instance hears of each recording by NOTIFY as it commits (which spreadsheet, at which version), a
 * renamed tab's webhooks tell the instances that cache the registry, and what was recorded of a spreadsheet
 * goes with its connection.
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

describe('recording from several instances', () => {
  it('every instance hears of each recording as it commits, with its spreadsheet and version', async () => {
    const [a, b] = await twoInstances();
    await a.stores.addWebhook({ spreadsheetId: 'wb_1', sourceSheetId: '1', sheetName: 'People' });
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

    // Every instance hears of each recording once it committed (B's first sight of v1 recorded nothing).
    await expect.poll(() => recorded.length, { timeout: 2000 }).toBe(4);
    // Each says which spreadsheet, at which version: an instance holding another version reads it again.
    expect(recorded.map((p) => readRecordedPayload(p ?? ''))).toEqual(
      ['v1', 'v2', 'v3', 'v4'].map((version) => ({ spreadsheetId: 'wb_1', version })),
    );
  });

  it('a renamed tab tells the instances caching the registry; a removed connection takes what was recorded of it', async () => {
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

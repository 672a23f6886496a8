/**
 * Team mode's writes: two instances (two processes, each a `Spreadsheets` registry with its own PgOwnership on
 * one real PostgreSQL) append to one local .xlsx at the same time. Only one of them can hold the lease, yet both
 * write: their turns run one after another under the spreadsheet's lock, each on a current copy, and no
 * acknowledged row is lost (read back by openpyxl). A recording waits for the lock as a write does.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { openSource } from '../../server/sources/index.ts';
import { Spreadsheets } from '../../server/spreadsheets/spreadsheets.ts';
import { PgOwnership } from '../../server/store-pg/ownership.ts';
import { runPython } from '../helpers/openpyxl.ts';
import { teamDatabase } from '../helpers/team-database.ts';

const run = promisify(execFile);
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

const WRITER = path.resolve(import.meta.dirname, '../helpers/team-writer.ts');

/** A People workbook written by openpyxl (header and one row), and its connection as every instance reads it. */
async function teamWorkbook(): Promise<ConnectionRecord> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-team-writes-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'team.xlsx');
  await runPython(
    `import openpyxl, sys
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'People'
ws.append(['Name', 'Age'])
ws.append(['Ada', 36])
wb.save(sys.argv[1])`,
    [file],
  );
  return {
    userKey: 'team',
    spreadsheetId: 'wb_team',
    name: 'team.xlsx',
    sourceKind: 'workbook',
    location: await realpath(file),
    publicRead: false,
    createdAt: new Date().toISOString(),
  };
}

/** The Name column as openpyxl reads the saved file. */
async function namesInFile(file: string): Promise<string[]> {
  const out = await runPython(
    `import openpyxl, json, sys
ws = openpyxl.load_workbook(sys.argv[1])['People']
print(json.dumps([r[0] for r in ws.iter_rows(min_row=2, values_only=True)]))`,
    [file],
  );
  return JSON.parse(out) as string[];
}

interface WriterReport {
  acknowledged: string[];
  errors: string[];
  overlaps: number;
}

async function instanceWrites(
  url: string,
  connection: ConnectionRecord,
  name: string,
): Promise<WriterReport> {
  const { stdout } = await run(process.execPath, [WRITER, url, JSON.stringify(connection), name, '3', '8'], {
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as WriterReport;
}

describe('team mode: writes from every instance', () => {
  it('two instances append at once: every write is acknowledged, none overlaps, no acknowledged row is lost', async () => {
    const { url, pool } = await teamDatabase();
    cleanups.push(() => pool.end());
    const connection = await teamWorkbook();
    const [a, b] = await Promise.all([
      instanceWrites(url, connection, 'a'),
      instanceWrites(url, connection, 'b'),
    ]);
    // Both wrote, though only one can have held the lease.
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
    expect(a.acknowledged).toHaveLength(24);
    expect(b.acknowledged).toHaveLength(24);
    // No two turns of the two instances ran at the same time.
    expect(a.overlaps + b.overlaps).toBe(0);
    const names = await namesInFile(connection.location);
    expect(names[0]).toBe('Ada');
    expect([...names].sort()).toEqual(['Ada', ...a.acknowledged, ...b.acknowledged].sort());
  });

  it('an outside change is recorded by the owner only once the other instance’s turn is over', async () => {
    const { url, pool } = await teamDatabase();
    cleanups.push(() => pool.end());
    const connection = await teamWorkbook();
    const owner = new PgOwnership({ pool, databaseUrl: url, instanceId: 'owner', ttlMs: 5000 });
    const other = new PgOwnership({ pool, databaseUrl: url, instanceId: 'other', ttlMs: 5000 });
    cleanups.push(
      () => owner.close(),
      () => other.close(),
    );
    const recorded: string[] = [];
    const spreadsheets = new Spreadsheets({
      openSource: (c) => openSource(c, {}),
      record: async (_id, _before, after) => {
        recorded.push(after.version);
      },
      ownership: owner,
    });
    cleanups.push(() => spreadsheets.close());
    const spreadsheet = spreadsheets.of(connection);
    await spreadsheet.observe(); // the first sight, recorded
    expect(recorded).toHaveLength(1);

    // Another instance is in a turn of this spreadsheet; meanwhile another program saves the file.
    let endTurn = () => {};
    const turn = other.exclusive(connection.spreadsheetId, () => new Promise<void>((r) => (endTurn = r)));
    cleanups.push(async () => endTurn()); // however the test ends, the other instance's turn does
    await runPython(
      `import openpyxl, sys
wb = openpyxl.load_workbook(sys.argv[1])
wb['People'].append(['Outside', 1])
wb.save(sys.argv[1])`,
      [connection.location],
    );
    const observed = spreadsheet.observe();
    await new Promise((r) => setTimeout(r, 300));
    expect(recorded).toHaveLength(1); // waiting for the lock
    endTurn();
    await turn;
    await observed;
    expect(recorded).toHaveLength(2);
    expect((await spreadsheet.tab({ name: 'People' })).typed.map((row) => row[0])).toEqual([
      'Ada',
      'Outside',
    ]);
  });

  it('losing the lease stops the watching only: the spreadsheet still reads and writes, and asks again', async () => {
    const { url, pool } = await teamDatabase();
    cleanups.push(() => pool.end());
    const connection = await teamWorkbook();
    const mine = new PgOwnership({ pool, databaseUrl: url, instanceId: 'mine', ttlMs: 600 });
    const theirs = new PgOwnership({ pool, databaseUrl: url, instanceId: 'theirs', ttlMs: 600 });
    cleanups.push(
      () => mine.close(),
      () => theirs.close(),
    );
    const spreadsheets = new Spreadsheets({ openSource: (c) => openSource(c, {}), ownership: mine });
    cleanups.push(() => spreadsheets.close());
    const spreadsheet = spreadsheets.of(connection);
    spreadsheet.follow();
    await expect
      .poll(async () => (await pool.query('SELECT holder FROM spreadsheet_leases')).rows)
      .toEqual([{ holder: 'mine' }]);
    // As if this instance had stalled past the TTL: its row lapses and another instance takes the lease.
    await pool.query("UPDATE spreadsheet_leases SET expires_at = now() - interval '1 second'");
    expect(await theirs.acquire(connection.spreadsheetId)).not.toBeNull();
    await expect.poll(() => spreadsheet.followed, { timeout: 3000 }).toBe(false);
    // Still open here: the same object answers reads and writes.
    expect(spreadsheets.of(connection)).toBe(spreadsheet);
    const tab = await spreadsheet.tab({ name: 'People' });
    await spreadsheet.write(tab.sourceSheetId, [{ op: 'append', values: { Name: 'After', Age: 2 } }], {
      allowFormulas: false,
      userEntered: false,
    });
    expect(await namesInFile(connection.location)).toEqual(['Ada', 'After']);
    // Following again waits for the lease, which is the other instance's now.
    spreadsheet.follow();
    await expect.poll(() => spreadsheet.followed, { timeout: 3000 }).toBe(false);
  });
});

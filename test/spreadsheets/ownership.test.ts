/**
 * One owner per spreadsheet, inside one process: the real Spreadsheet over a real .csv in a temp dir, recording
 * through the service's real change recorder into SQLite. The recorder is called through the asynchronous
 * contract (it resolves a little later, as a recorder over a network database will), which is what makes overlap
 * visible if writes were not taking turns.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceContext, type SqliteServiceContext } from '../../server/context.ts';
import { isAppError } from '../../server/errors.ts';
import { openSource } from '../../server/sources/index.ts';
import type { SpreadsheetSnapshot } from '../../server/sources/source.ts';
import { InProcessOwnership } from '../../server/spreadsheets/ownership.ts';
import { Spreadsheets } from '../../server/spreadsheets/spreadsheets.ts';
import { connectFile, writeCsv } from '../helpers/fixtures.ts';

let context: SqliteServiceContext | undefined;
let spreadsheets: Spreadsheets | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await spreadsheets?.close();
  await context?.close();
  await cleanup?.();
  [spreadsheets, context, cleanup] = [undefined, undefined, undefined];
});

const OPTIONS = { allowFormulas: false, userEntered: false };
const append = (name: string) => [{ op: 'append' as const, values: { Name: name, Age: 1 } }];

/**
 * A data dir and a team.csv, and Spreadsheets recording through the context's recorder, asynchronously; each
 * recording waits for `held` too, when given.
 */
async function setUp(csv = 'Name,Age\nAda,36\n', held?: Promise<void>) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-ownership-'));
  cleanup = () => rm(dir, { recursive: true, force: true });
  context = createServiceContext({ dataDir: path.join(dir, 'data'), log: () => {} });
  const file = await writeCsv(dir, 'team.csv', csv);
  const conn = await connectFile(context.connections, file);
  const recordings: { inserted: string[]; overlapping: number }[] = [];
  let active = 0;
  const recorder = context.recorder;
  spreadsheets = new Spreadsheets({
    openSource: (c) => openSource(c, context?.sourceOptions ?? {}),
    record: async (id, before: SpreadsheetSnapshot | null, after: SpreadsheetSnapshot) => {
      active++;
      const overlapping = active;
      await new Promise((resolve) => setTimeout(resolve, 30));
      await held;
      await recorder.record(id, before, after);
      const names = (s: SpreadsheetSnapshot | null) => (s?.tabs[0]?.typed ?? []).map((row) => row[0]);
      recordings.push({ inserted: names(after).slice(names(before).length) as string[], overlapping });
      active--;
    },
    ownership: new InProcessOwnership(),
  });
  return { file, conn, recordings, spreadsheet: spreadsheets.of(conn) };
}

const changeLog = () =>
  context?.db
    .prepare("SELECT row_index, change, row_values FROM change_log WHERE change = 'inserted' ORDER BY seq")
    .all() as { row_index: number; row_values: string }[];

describe('Ownership inside one process', () => {
  it('two writes to one spreadsheet take turns: each is recorded before the next reaches the file, in order', async () => {
    const { spreadsheet, recordings } = await setUp();
    const tab = await spreadsheet.tab({ name: 'team' });
    await spreadsheet.observe(); // the first sight: the baseline
    const first = spreadsheet.write(tab.sourceSheetId, append('Bob'), OPTIONS);
    // Asked while the first write's change is still being recorded: it waits for the next turn.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = spreadsheet.write(tab.sourceSheetId, append('Cy'), OPTIONS);
    const answeredAfter: number[] = [];
    await Promise.all([
      first.then(() => answeredAfter.push(changeLog().length)),
      second.then(() => answeredAfter.push(changeLog().length)),
    ]);

    expect(recordings.slice(1)).toEqual([
      { inserted: ['Bob'], overlapping: 1 },
      { inserted: ['Cy'], overlapping: 1 },
    ]);
    // Each write was answered once its own change was in the change log.
    expect(answeredAfter).toEqual([1, 2]);
    expect(changeLog().map((e) => [e.row_index, JSON.parse(e.row_values).Name])).toEqual([
      [2, 'Bob'],
      [3, 'Cy'],
    ]);
  });

  it('a write after the lease is lost is refused with the reason, and the file is left alone', async () => {
    const { file, conn, spreadsheet } = await setUp();
    const tab = await spreadsheet.tab({ name: 'team' });
    await spreadsheet.write(tab.sourceSheetId, append('Bob'), OPTIONS);
    const before = await readFile(file, 'utf8');

    // The connection is removed: its spreadsheet gives up its lease; whoever still holds the object is refused.
    await spreadsheets?.forget(conn.spreadsheetId);
    const refused = await spreadsheet
      .write(tab.sourceSheetId, append('Cy'), OPTIONS)
      .catch((e: unknown) => e);
    expect(isAppError(refused) && [refused.code, refused.message]).toEqual([
      'spreadsheet_not_found',
      'This spreadsheet was disconnected; the write was not made.',
    ]);
    expect(await readFile(file, 'utf8')).toBe(before);

    // A new Spreadsheet for the connection owns it again and writes.
    const again = spreadsheets?.of(conn);
    expect(again).not.toBe(spreadsheet);
    await again?.write(tab.sourceSheetId, append('Cy'), OPTIONS);
    expect(await readFile(file, 'utf8')).toContain('Cy');
  });

  it('the service stopping ends every lease: a late write answers 409 and is not made', async () => {
    const { file, spreadsheet } = await setUp();
    const tab = await spreadsheet.tab({ name: 'team' });
    await spreadsheets?.close();
    const refused = await spreadsheet
      .write(tab.sourceSheetId, append('Bob'), OPTIONS)
      .catch((e: unknown) => e);
    expect(isAppError(refused) && refused.code).toBe('conflict');
    expect(isAppError(refused) && refused.message).toMatch(/no longer owns .*the write was not made/);
    expect(await readFile(file, 'utf8')).toBe('Name,Age\nAda,36\n');
  });
});

describe('a write its source refuses from its last read (a full sheet)', () => {
  it('is refused at once, not after a recording turn under way, and changes nothing', async () => {
    // The header on the sheet's last rows: 1,048,576 lines, so no row can be added.
    const full = `${'\n'.repeat(1_048_576 - 3)}Name,Age\nAda,36\nBo,7\n`;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { file, spreadsheet } = await setUp(full, held);
    const tab = await spreadsheet.tab({ name: 'team' });
    const before = await readFile(file, 'utf8');
    const recording = spreadsheet.observe(); // the first sight, held in its recording turn
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await spreadsheet.write(tab.sourceSheetId, append('Cy'), OPTIONS).catch((e) => e);
    expect(isAppError(refused) && [refused.code, refused.details.limit_of]).toEqual(['conflict', 'rows']);
    let recorded = false;
    void recording.then(() => {
      recorded = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(recorded).toBe(false); // the refusal did not wait for the recording
    release();
    await recording;
    // A write behind another is not refused ahead of it (the one before may make room): it waits its turn.
    const deleted = spreadsheet.write(tab.sourceSheetId, [{ op: 'delete' as const, row: 1 }], OPTIONS);
    const appended = spreadsheet.write(tab.sourceSheetId, append('Cy'), OPTIONS);
    await deleted;
    await appended;
    const after = (await readFile(file, 'utf8')).split('\n');
    expect(after.slice(-3)).toEqual(['Bo,7', 'Cy,1', '']);
    expect(before.split('\n').length).toBe(after.length);
  }, 60_000);
});

describe('an ownership that fails to answer', () => {
  it('is asked again after a failed acquire (a database blip), and then the spreadsheet is followed', async () => {
    const { conn } = await setUp();
    // The one stand-in of this file: an ownership whose first answer fails, as a shared database's may; the
    // in-process one never fails.
    const inProcess = new InProcessOwnership();
    let asked = 0;
    const flaky = new Spreadsheets({
      openSource: (c) => openSource(c, context?.sourceOptions ?? {}),
      ownership: {
        writers: inProcess.writers,
        exclusive: (id, work) => inProcess.exclusive(id, work),
        acquire: (id) => (++asked === 1 ? Promise.reject(new Error('database away')) : inProcess.acquire(id)),
        renew: (lease) => inProcess.renew(lease),
        release: (lease, reason) => inProcess.release(lease, reason),
      },
    });
    const spreadsheet = flaky.of(conn);
    spreadsheet.follow();
    await expect.poll(() => asked).toBe(1);
    await expect.poll(() => spreadsheet.followed).toBe(false);
    spreadsheet.follow(); // the follower's next sync
    await expect.poll(() => asked).toBe(2);
    await new Promise((r) => setTimeout(r, 50));
    expect(spreadsheet.followed).toBe(true);
    await flaky.close();
  });
});

describe('InProcessOwnership', () => {
  it('one holder per spreadsheet: a second acquire is null until release, which fires `lost` once', async () => {
    const ownership = new InProcessOwnership();
    const lease = await ownership.acquire('wb_1');
    expect(lease).not.toBeNull();
    expect(await ownership.acquire('wb_1')).toBeNull();
    expect(await ownership.acquire('wb_2')).not.toBeNull();
    const reasons: unknown[] = [];
    lease?.lost.addEventListener('abort', () => reasons.push(lease.lost.reason));
    expect(lease && (await ownership.renew(lease))).toBe(true);

    if (lease) await ownership.release(lease);
    if (lease) await ownership.release(lease); // harmless on a lost lease
    expect(reasons).toHaveLength(1);
    expect(isAppError(reasons[0]) && reasons[0].code).toBe('conflict');
    expect(lease && (await ownership.renew(lease))).toBe(false);
    expect(await ownership.acquire('wb_1')).not.toBeNull();
  });
});

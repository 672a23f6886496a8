/**
 * The first look after a start compares each tab with its stored baseline. When the file is the very version
 * the baseline was read from, a difference can only come from reading it differently (an engine upgrade,
 * formula results computed now): the baseline is updated, and nothing is logged or sent.
 *
 * A checkpoint made from a read names that read (sources/read-identity.ts: the file's bytes, the engine, the
 * limits, the code's version); a first sight whose read has the same name takes the checkpoint as holding its
 * rows without reading them (at a million rows, seconds of decoding), shown here with a checkpoint whose rows were
 * changed behind its name. A checkpoint naming another read is compared as before.
 */

import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceContext, type SqliteServiceContext } from '../../server/context.ts';
import type { TabContent } from '../../server/repositories/baselines.ts';
import { encodeCheckpoint } from '../../server/repositories/rules/baseline-format.ts';
import { storeCheckpointNow } from '../../server/repositories/rules/checkpoint-parts.ts';
import { runAtOnce } from '../../server/repositories/rules/transactional.ts';
import { readIdentityOf } from '../../server/sources/read-identity.ts';
import { rowsOwner } from '../../server/sources/tab-rows.ts';
import { SqliteBaselines } from '../../server/store/baselines.ts';
import { SqliteRecordingStatements } from '../../server/store/recording.ts';
import { connectFile, writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, startHarness } from '../helpers/harness.ts';
import { sqliteOf } from '../helpers/sqlite-of.ts';
import { webhookOnTab } from '../helpers/webhook-to-receiver.ts';

let h: Harness;
const open: SqliteServiceContext[] = [];
afterEach(async () => {
  for (const context of open.splice(0)) await context.close();
  await h?.close();
});

function count(context: SqliteServiceContext, table: 'deliveries' | 'change_log'): number {
  return (sqliteOf(context).prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
}

/** What an older engine would have stored as the tab's checkpoint, through the recording's own statements. */
function storeCheckpoint(
  context: SqliteServiceContext,
  spreadsheetId: string,
  sourceSheetId: string,
  content: TabContent,
  version: string,
): void {
  const s = new SqliteRecordingStatements(context.db);
  context.db.transaction(() => {
    const id = runAtOnce(storeCheckpointNow(s, encodeCheckpoint(content), 0));
    s.checkpoint({ spreadsheetId, sourceSheetId }, content.name, 0, version, id);
  })();
}

describe('a baseline read from the same file version', () => {
  it('is replaced by a different read of that version without change log or notifications', async () => {
    h = await startHarness();
    const file = await writePeopleWorkbook(h.dir, 'same.xlsx');
    const dataDir = path.join(h.dir, 'reread-data');
    const first = createServiceContext({ dataDir, log: () => {} });
    const conn = await connectFile(first.connections, file);
    const tab = await webhookOnTab(first, conn, 'https://hooks.example.com/in');
    // What an older engine stored for the same file: Ann's age unread (null), one row fewer.
    const stored = (await new SqliteBaselines(first.db).load(conn.spreadsheetId)).get(tab.sourceSheetId)!;
    expect(stored.sourceVersion).toMatch(/.+/);
    const older = {
      ...stored,
      typed: stored.typed.slice(0, -1).map((r, i) => (i === 0 ? r.map((v, c) => (c === 1 ? null : v)) : r)),
    };
    storeCheckpoint(first, conn.spreadsheetId, tab.sourceSheetId, older, stored.sourceVersion!);
    await first.close();

    const second = createServiceContext({ dataDir, log: () => {} });
    open.push(second);
    const seen = (await second.spreadsheets.of(conn).observe()).tabs.find((t) => t.name === 'People')!;
    expect(count(second, 'deliveries')).toBe(0);
    expect(count(second, 'change_log')).toBe(0);
    const now = (await new SqliteBaselines(second.db).load(conn.spreadsheetId)).get(tab.sourceSheetId)!;
    expect(now.typed).toEqual(seen.typed);
    expect(now.typed[0]?.[1]).toBe(31);
  });

  it('a write to one tab moves every tab of the file to the new version (the others read the same)', async () => {
    h = await startHarness();
    const file = await writePeopleWorkbook(h.dir, 'two-tabs.xlsx');
    const context = createServiceContext({ dataDir: path.join(h.dir, 'two-tabs-data'), log: () => {} });
    open.push(context);
    const conn = await connectFile(context.connections, file);
    const tab = (await context.spreadsheets.of(conn).observe()).tabs.find((t) => t.name === 'People')!;
    const result = await context.spreadsheets
      .of(conn)
      .write(tab.sourceSheetId, [{ op: 'append', values: { Name: 'Eve' } }], {
        allowFormulas: false,
        userEntered: false,
      });
    const versions = [
      ...(await new SqliteBaselines(sqliteOf(context)).load(conn.spreadsheetId)).values(),
    ].map((b) => b.sourceVersion);
    expect(versions).toEqual([result.snapshot.version, result.snapshot.version]);
  });

  it('a baseline from another version is still compared: the difference is a change and is sent', async () => {
    h = await startHarness();
    const file = await writePeopleWorkbook(h.dir, 'other.xlsx');
    const dataDir = path.join(h.dir, 'other-data');
    const first = createServiceContext({ dataDir, log: () => {} });
    const conn = await connectFile(first.connections, file);
    const tab = await webhookOnTab(first, conn, 'https://hooks.example.com/in', { events: ['row.updated'] });
    const stored = (await new SqliteBaselines(first.db).load(conn.spreadsheetId)).get(tab.sourceSheetId)!;
    const older = {
      ...stored,
      typed: stored.typed.map((r, i) => (i === 0 ? r.map((v, c) => (c === 1 ? null : v)) : r)),
    };
    storeCheckpoint(first, conn.spreadsheetId, tab.sourceSheetId, older, 'an older version');
    await first.close();

    const second = createServiceContext({ dataDir, log: () => {} });
    open.push(second);
    await second.spreadsheets.of(conn).observe();
    expect(count(second, 'deliveries')).toBe(1);
    expect(count(second, 'change_log')).toBe(1);
  });
});

describe('a checkpoint made from a read of the same bytes', () => {
  /** The People tab recorded at first sight, its stored rows changed behind the read's name (`identity`). */
  async function storedUnderName(dir: string, name: (identity: string) => string) {
    h = await startHarness();
    const file = await writePeopleWorkbook(h.dir, `${dir}.xlsx`);
    const dataDir = path.join(h.dir, `${dir}-data`);
    const first = createServiceContext({ dataDir, log: () => {} });
    const conn = await connectFile(first.connections, file);
    const tab = await webhookOnTab(first, conn, 'https://hooks.example.com/in');
    const read = (await first.spreadsheets.of(conn).read()).tabs.find((t) => t.name === 'People')!;
    const identity = readIdentityOf(rowsOwner(read));
    expect(identity).toMatch(/.+/);
    const stored = (await new SqliteBaselines(first.db).load(conn.spreadsheetId)).get(tab.sourceSheetId)!;
    const changed = {
      name: stored.name,
      header: stored.header,
      typed: stored.typed.map((r, i) => (i === 0 ? r.map((v, c) => (c === 1 ? 99 : v)) : r)),
      readIdentity: name(identity!),
    };
    storeCheckpoint(first, conn.spreadsheetId, tab.sourceSheetId, changed, stored.sourceVersion!);
    await first.close();
    const second = createServiceContext({ dataDir, log: () => {} });
    open.push(second);
    const seen = (await second.spreadsheets.of(conn).observe()).tabs.find((t) => t.name === 'People')!;
    const after = (await new SqliteBaselines(second.db).load(conn.spreadsheetId)).get(tab.sourceSheetId)!;
    return { second, seen, after };
  }

  it('holds the rows read under the same name without comparing them', async () => {
    const { second, seen, after } = await storedUnderName('same-read', (identity) => identity);
    expect(seen.typed[0]?.[1]).toBe(31);
    // Not compared, so not restated: the stored rows are still the changed ones, and nothing was logged.
    expect(after.typed[0]?.[1]).toBe(99);
    expect(count(second, 'change_log')).toBe(0);
    expect(count(second, 'deliveries')).toBe(0);
  });

  it('is compared when it names another read, and restated as read', async () => {
    const { second, seen, after } = await storedUnderName('other-read', (identity) => `${identity}+other`);
    expect(after.typed).toEqual(seen.typed);
    expect(after.typed[0]?.[1]).toBe(31);
    expect(count(second, 'change_log')).toBe(0);
  });

  it('is named only for rows as read: a tab a write changed has no name, the tab it left keeps its own', async () => {
    h = await startHarness();
    const file = await writePeopleWorkbook(h.dir, 'named.xlsx');
    const context = createServiceContext({ dataDir: path.join(h.dir, 'named-data'), log: () => {} });
    open.push(context);
    const conn = await connectFile(context.connections, file);
    const before = await context.spreadsheets.of(conn).observe();
    const people = before.tabs.find((t) => t.name === 'People')!;
    const result = await context.spreadsheets
      .of(conn)
      .write(people.sourceSheetId, [{ op: 'append', values: { Name: 'Eve' } }], {
        allowFormulas: false,
        userEntered: false,
      });
    for (const tab of result.snapshot.tabs) {
      const name = readIdentityOf(rowsOwner(tab));
      if (tab.sourceSheetId === people.sourceSheetId) expect(name).toBeUndefined();
      else expect(name).toBe(readIdentityOf(rowsOwner(before.tabs.find((t) => t.name === tab.name)!)));
    }
    expect(result.snapshot.tabs.length).toBeGreaterThan(1);
  });
});

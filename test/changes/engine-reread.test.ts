/**
 * The first look after a start compares each tab with its stored baseline. When the file is the very version
 * the baseline was read from, a difference can only come from reading it differently (an engine upgrade,
 * formula results computed now): the baseline is updated, and nothing is logged or sent.
 */

import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceContext, type SqliteServiceContext } from '../../server/context.ts';
import type { TabContent } from '../../server/repositories/baselines.ts';
import { encodeCheckpoint } from '../../server/repositories/rules/baseline-format.ts';
import { storeCheckpointNow } from '../../server/repositories/rules/checkpoint-parts.ts';
import { runAtOnce } from '../../server/repositories/rules/transactional.ts';
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

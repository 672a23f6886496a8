/**
 * Every registered connection's spreadsheet is followed (real workbook sources, an injected clock for the list sync):
 * new connections are followed and looked at, removed ones let go, and the list is re-read on its own timer.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { openSource } from '../../server/sources/index.ts';
import { ConnectionFollower } from '../../server/spreadsheets/follow-connections.ts';
import { InProcessOwnership } from '../../server/spreadsheets/ownership.ts';
import { Spreadsheets } from '../../server/spreadsheets/spreadsheets.ts';
import { ManualTimers } from '../helpers/manual-timers.ts';

let dir: string;
afterEach(() => rm(dir, { recursive: true, force: true }));

async function connection(id: string): Promise<ConnectionRecord> {
  const location = path.join(dir, `${id}.csv`);
  await writeFile(location, 'a\n1\n');
  return {
    spreadsheetId: id,
    userKey: `u_${id}`,
    name: id,
    sourceKind: 'workbook',
    location,
    publicRead: false,
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

describe('ConnectionFollower', () => {
  it('follows new connections, lets removed ones go, and re-reads the list on its timer', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-follow-'));
    const seen: string[] = [];
    const spreadsheets = new Spreadsheets({
      openSource: (c) => openSource(c, { pollMs: 600_000 }),
      record: async (spreadsheetId) => {
        seen.push(spreadsheetId);
      },
      ownership: new InProcessOwnership(),
    });
    const a = await connection('a');
    const b = await connection('b');
    let list = [a];
    const timers = new ManualTimers();
    const follower = new ConnectionFollower(spreadsheets, async () => list, { syncMs: 2000, timers });

    // The list is read through the async Connections repository: each look settles a microtask later.
    follower.start();
    await vi.waitFor(() => expect(spreadsheets.followed()).toEqual(['a']));
    list = [a, b];
    timers.advance(1999);
    await Promise.resolve();
    expect(spreadsheets.followed()).toEqual(['a']);
    timers.advance(1);
    await vi.waitFor(() => expect(spreadsheets.followed().sort()).toEqual(['a', 'b']));
    // Following looks at the spreadsheet at once: its first snapshot reaches the change listener (just after
    // the readers of that first read are answered).
    await Promise.all([spreadsheets.of(a).read(), spreadsheets.of(b).read()]);
    await vi.waitFor(() => expect(seen.sort()).toEqual(['a', 'b']));

    list = [b];
    timers.advance(2000);
    await vi.waitFor(() => expect(spreadsheets.followed()).toEqual(['b']));
    follower.stop();
    expect(timers.active).toBe(0);
    await spreadsheets.close();
  });
});

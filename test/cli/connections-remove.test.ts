/**
 * `sheetport connections remove` refuses a connection that has webhooks (listing them) and, with --force,
 * removes them too and says how many.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/store/db.ts';
import { type CliRun, cliJson, runCli } from '../helpers/cli.ts';

let tmp: string;
let dataDir: string;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-remove-')));
  dataDir = path.join(tmp, 'data');
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const run = (...args: string[]): Promise<CliRun> => runCli(args, { dataDir, cwd: tmp });

const ok = <T>(...args: string[]): Promise<T> => cliJson<T>(args, { dataDir, cwd: tmp });

async function workbook(name: string): Promise<string> {
  const file = path.join(tmp, name);
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Orders').addRows([['Id'], [1]]);
  await wb.xlsx.writeFile(file);
  return file;
}

describe('sheetport connections remove', () => {
  it('is refused while webhooks watch the spreadsheet; --force removes them and says how many', async () => {
    const { spreadsheet_id: id } = await ok<{ spreadsheet_id: string }>('connect', await workbook('a.xlsx'));
    const hook = (url: string) =>
      ok<{ webhook_id: string }>(
        'webhooks',
        'create',
        '--url',
        url,
        '--spreadsheet',
        id,
        '--sheet',
        'Orders',
      );
    const a = await hook('https://hooks.example.com/a');
    const b = await hook('http://127.0.0.1:9/b');

    const refused = await run('connections', 'remove', id, '--json');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    const { error } = JSON.parse(refused.stderr) as { error: { code: string; message: string } };
    expect(error.code).toBe('conflict');
    expect(error.message).toContain(`${a.webhook_id}, ${b.webhook_id}`);
    expect(error.message).toMatch(/--force/);
    expect(await ok<unknown[]>('connections', 'list')).toHaveLength(1);
    expect(await ok<unknown[]>('webhooks', 'list')).toHaveLength(2);

    const human = await run('connections', 'remove', id, '--force');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`and its 2 webhooks (${a.webhook_id}, ${b.webhook_id})`);
    expect(await ok<unknown[]>('connections', 'list')).toEqual([]);
    expect(await ok<unknown[]>('webhooks', 'list')).toEqual([]);
    // Their secrets and queues went too, not just the listing.
    const db = openDatabase(dataDir);
    try {
      expect(db.prepare('SELECT COUNT(*) FROM webhooks').pluck().get()).toBe(0);
    } finally {
      db.close();
    }

    // --json says how many; a connection without webhooks needs no --force.
    const { spreadsheet_id: other } = await ok<{ spreadsheet_id: string }>(
      'connect',
      await workbook('b.xlsx'),
    );
    await ok(
      'webhooks',
      'create',
      '--url',
      'https://hooks.example.com/c',
      '--spreadsheet',
      other,
      '--sheet',
      'Orders',
    );
    expect(await ok('connections', 'remove', other, '--force')).toMatchObject({
      removed: true,
      spreadsheet_id: other,
      webhooks_removed: 1,
    });
    const { spreadsheet_id: plain } = await ok<{ spreadsheet_id: string }>(
      'connect',
      await workbook('c.xlsx'),
    );
    // `connect` kept its read of each file for a later start; removing a connection drops its own (those of
    // a.xlsx and b.xlsx went with theirs above).
    const kept = () => fs.readdirSync(path.join(dataDir, 'reads')).filter((name) => name.endsWith('.read'));
    expect(kept()).toHaveLength(1);
    expect(await ok('connections', 'remove', plain)).toMatchObject({ removed: true, webhooks_removed: 0 });
    expect(kept()).toEqual([]);
  }, 60_000);
});

/**
 * What a service opens is its own: two services in one process (a test run, the tray app beside a CLI command)
 * on the same workbook file each read and write it with their own file limits and their own backups, whichever
 * opened it first.
 */
import { mkdtemp, readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writePeopleWorkbook } from '../../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => e.name);
}

describe('two services in one process on the same file', () => {
  it('each keeps its own file limits and backups, whichever opened the file first', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-shared-'));
    const file = await writePeopleWorkbook(dir, 'shared.xlsx');
    const size = (await stat(file)).size;
    // `strict` opens the file first: a size limit below the file's size, and no backups.
    const strict = await startHarness({
      fileLimits: { maxFileBytes: size - 1 },
      config: { backups: { keep: 0, maxAgeDays: 0, maxBytes: 0 } },
    });
    open.push(strict);
    // `kept` opens it next: the default limits, and three versions kept per file.
    const kept = await startHarness({ config: { backups: { keep: 3, maxAgeDays: 0, maxBytes: 0 } } });
    open.push(kept);
    const strictConnection = await strict.connect(file);
    const keptConnection = await kept.connect(file);

    const refused = await strict.fetch(rowsPath(strictConnection, 'People'));
    // The file cannot be read under this service's limit: 502, the reason `too_large`.
    expect(refused.status).toBe(502);
    expect(JSON.stringify(await refused.json())).toContain('"too_large"');
    // The other service reads the same file under its own limit, after the first refused it.
    const read = await kept.fetch(rowsPath(keptConnection, 'People'));
    expect(read.status).toBe(200);

    const appended = await kept.fetch(rowsPath(keptConnection, 'People'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Name: 'Kept' }),
    });
    expect(appended.status).toBe(201);
    // Its write kept the version it replaced in its own data dir; the service without backups kept none.
    const versions = (await files(path.join(kept.context.dataDir, 'backups'))).filter(
      (n) => n !== 'source.json',
    );
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatch(/shared\.xlsx$/);
    expect(await files(path.join(strict.context.dataDir, 'backups'))).toEqual([]);
    // And the strict service still refuses the file, now larger still.
    expect((await strict.fetch(rowsPath(strictConnection, 'People'))).status).toBe(502);
  });
});

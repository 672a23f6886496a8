import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceContext } from '../../server/context.ts';
import { type AnyJson, cliJson, runCli } from '../helpers/cli.ts';

let dir: string;

const cli = (...args: string[]) => cliJson<AnyJson>(args, { dataDir: dir });
async function cliFails(...args: string[]) {
  const run = await runCli([...args, '--json'], { dataDir: dir });
  if (run.code === 0) throw new Error('expected the command to fail');
  return run;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-limits-cli-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('sheetport keys: plans and usage', () => {
  it('creates Free by default, changes plans, and refuses bad enterprise numbers', async () => {
    const created = await cli('keys', 'create');
    expect(created).toMatchObject({ plan: 'free', limits: { per_second: 10, daily: 5000 } });
    expect(await cli('keys', 'set-plan', created.id, '--plan', 'pro')).toMatchObject({
      plan: 'pro',
      limits: { per_second: 100, daily: 500000 },
    });
    expect(
      await cli(
        'keys',
        'set-plan',
        created.id,
        '--plan',
        'enterprise',
        '--per-second',
        '250',
        '--daily',
        '1000000',
      ),
    ).toMatchObject({ plan: 'enterprise', limits: { per_second: 250, daily: 1000000 } });
    const bad = await cliFails('keys', 'set-plan', created.id, '--plan', 'enterprise', '--per-second', '5');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/Enterprise keys need/);
    const missing = await cliFails('keys', 'set-plan', 'key_nope', '--plan', 'pro');
    expect(missing.stderr).toMatch(/No API key/);
  });

  it('reports usage counted by the server', async () => {
    const { id } = await cli('keys', 'create');
    const context = createServiceContext({ dataDir: dir });
    const now = Date.now();
    for (let i = 0; i < 4; i++) context.usage.countRequest(id, now);
    context.usage.countRefused(id, now, 'per_second');
    await context.close();
    const report = await cli('keys', 'usage', id);
    expect(report).toMatchObject({
      key_id: id,
      today: { requests: 4, refused_per_second: 1, refused_daily: 0, remaining: 4996 },
    });
    expect(report.days).toHaveLength(1);
  });
});

describe('sheetport connections set --public-read', () => {
  it('turns public read on and off', async () => {
    const csv = path.join(dir, 'open.csv');
    await writeFile(csv, 'a,b\n1,2\n');
    const { spreadsheet_id } = await cli('connect', csv);
    expect(await cli('connections', 'set', spreadsheet_id, '--public-read', 'on')).toMatchObject({
      public_read: true,
    });
    expect(await cli('connections', 'set', spreadsheet_id, '--public-read', 'off')).toMatchObject({
      public_read: false,
    });
    expect((await cliFails('connections', 'set', 'wb_nope', '--public-read', 'on')).code).toBe(1);
  });
});

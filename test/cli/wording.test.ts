import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quantity } from '../../server/lib/quantity.ts';
import { runCli, succeeded } from '../helpers/cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-wording-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cli = async (...args: string[]) =>
  succeeded(args, await runCli(args, { dataDir: path.join(dir, 'data') })).stdout;

describe('CLI counts', () => {
  it('agree in number with their noun', () => {
    expect(quantity(0, 'row')).toBe('0 rows');
    expect(quantity(1, 'row')).toBe('1 row');
    expect(quantity(2, 'row')).toBe('2 rows');
    expect(quantity(1, 'delivery', 'deliveries')).toBe('1 delivery');
    expect(quantity(3, 'delivery', 'deliveries')).toBe('3 deliveries');
  });

  it('read right in command output', async () => {
    const file = path.join(dir, 'two.xlsx.csv');
    await writeFile(file, 'name\nAnn\n');
    const one = await cli('connect', file);
    expect(one).toMatch(/ 1 row /);

    const created = JSON.parse(
      await cli('keys', 'create', '--plan', 'enterprise', '--per-second', '1', '--daily', '10', '--json'),
    ) as { id: string };
    expect(
      await cli('keys', 'set-plan', created.id, '--plan', 'enterprise', '--per-second', '1', '--daily', '10'),
    ).toContain('1 request/s');
    expect(await cli('keys', 'usage', created.id)).toContain('Today: 0 requests');
  });
});

import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningCli, startCli } from '../helpers/cli.ts';

let dir: string;
const children: RunningCli[] = [];
afterAll(async () => {
  for (const c of children) await c.stop('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function demo(dataDir: string) {
  const demo = await startCli(['demo', '--json', '--port', '0'], { dataDir });
  children.push(demo);
  return {
    demo,
    info: JSON.parse(demo.line) as { url: string; key: string; user_key: string; curl: string },
  };
}

describe('npm start (sheetport demo)', () => {
  it('creates the demo once, prints a curl line that works, and keeps its key across starts', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-demo-'));
    const first = await demo(dir);
    // The printed curl line, taken apart and sent as it stands.
    const m = /^curl -H "Authorization: Bearer (\S+)" "(\S+)"$/.exec(first.info.curl);
    expect(m).not.toBeNull();
    const res = await fetch(m![2]!, { headers: { authorization: `Bearer ${m![1]}` } });
    expect(res.status).toBe(200);
    const rows = (await res.json()) as Record<string, unknown>[];
    expect(rows).toHaveLength(3);
    expect(Object.keys(rows[0]!)).toContain('Order ID');
    expect(res.headers.get('x-ratelimit-limit')).toBe('100'); // the demo key is Pro
    expect(await first.demo.stop('SIGTERM')).toBe(0);
    // Every file of the demo's data dir, the demo workbook included, is readable by the user only.
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = path.join(entry.parentPath, entry.name);
      expect((await stat(file)).mode & 0o777, file).toBe(0o600);
    }

    const second = await demo(dir);
    expect(second.info.key).toBe(first.info.key);
    expect(second.info.user_key).toBe(first.info.user_key);
    await second.demo.stop('SIGTERM');
  });
});

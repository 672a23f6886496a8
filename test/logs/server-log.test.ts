/**
 * The service's own messages go to <data dir>/logs/server.<n>.log (CONTRACT 7), as JSON lines in a 0600 file,
 * when it is started through the public entry without a logger of the embedder's.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../server/index.ts';

let dir: string;
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('server log', () => {
  it('keeps what the service reports, with the cause, in logs/ beside the request log', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-serverlog-'));
    const dataDir = path.join(dir, 'data');
    const server = await startServer({ dataDir, port: 0, host: '127.0.0.1' });
    server.context.log('Delivery worker failed a round', new Error('disk on fire'));
    await server.stop();

    const files = await readdir(path.join(dataDir, 'logs'));
    const serverFile = files.find((f) => f.startsWith('server.'));
    expect(serverFile).toBeDefined();
    const file = path.join(dataDir, 'logs', serverFile as string);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; level: string; err?: { message: string } });
    const line = lines.find((l) => l.msg === 'Delivery worker failed a round');
    expect(line).toMatchObject({ level: 'error', err: { message: 'disk on fire' } });
  });
});

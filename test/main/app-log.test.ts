/** The app log with the real electron-log (its Node entry: same file transport as in Electron) and real files. */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import log from 'electron-log/node';
import { afterEach, describe, expect, it } from 'vitest';
import { APP_LOG_MAX_BYTES, configureAppLog, rotateAppLog } from '../../main/app-log.ts';

let dir: string;
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('app log', () => {
  it('electron-log writes to <data dir>/logs/app.log and rotates it at the size limit', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-applog-'));
    const logger = log.create({ logId: `test-${Date.now()}` });
    logger.transports.console.level = false;
    const file = configureAppLog(logger, dir);
    expect(file).toBe(path.join(dir, 'logs', 'app.log'));
    expect(logger.transports.file.maxSize).toBe(APP_LOG_MAX_BYTES);

    logger.transports.file.maxSize = 2000; // small, so the test rotates quickly
    for (let i = 0; i < 100; i++) logger.info(`line ${i} ${'x'.repeat(60)}`);
    const files = (await readdir(path.join(dir, 'logs'))).sort();
    expect(files).toContain('app.log');
    expect(files).toContain('app.1.log');
    expect(files.filter((f) => f.startsWith('app.')).length).toBeLessThanOrEqual(4);
    expect(await readFile(file, 'utf8')).toContain('line 99');
  });

  it('writes nothing shaped like an API key or admin token, in messages or in errors', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-applog-'));
    const logger = log.create({ logId: `test-redact-${Date.now()}` });
    logger.transports.console.level = false;
    const file = configureAppLog(logger, dir);
    const key = `sp_${'k3Y-'.repeat(11)}`;
    const token = `spa_${'t0K_'.repeat(11)}`;
    logger.info(`Request with ?q=${key.replace('_', '%5F')}`);
    logger.error('Server failed:', new Error(`bad token ${token}`));
    const text = await readFile(file, 'utf8');
    expect(text).toContain('Server failed:');
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(key.slice(3));
    expect(text).not.toContain(token.slice(4));
  });

  it('keeps the newest rotated files and drops the oldest', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-applog-'));
    const file = path.join(dir, 'app.log');
    for (let round = 1; round <= 5; round++) {
      await writeFile(file, `round ${round}`);
      rotateAppLog(file, 3);
    }
    expect((await readdir(dir)).sort()).toEqual(['app.1.log', 'app.2.log', 'app.3.log']);
    expect(await readFile(path.join(dir, 'app.1.log'), 'utf8')).toBe('round 5');
    expect(await readFile(path.join(dir, 'app.3.log'), 'utf8')).toBe('round 3');
  });
});

/**
 * `sheetport admin-token --rotate` as a user runs it (the real CLI in its own process): against a data dir with a
 * running server (startServer, the same entry `serve` and the tray app use) the server takes the new token at
 * once; without one, the next start does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../server/index.ts';
import { runCli, succeeded } from '../helpers/cli.ts';

let dir: string;
let service: RunningServer | null = null;
afterEach(async () => {
  await service?.stop();
  service = null;
  await rm(dir, { recursive: true, force: true });
});

const adminStatus = async (url: string, token: string) =>
  (await fetch(`${url}/admin/keys`, { headers: { Authorization: `Bearer ${token}` } })).status;

async function cli(dataDir: string, ...args: string[]): Promise<string> {
  return succeeded(args, await runCli(args, { dataDir })).stdout.trim();
}

describe('sheetport admin-token --rotate', () => {
  it('rotates the running server: the old token gets 401 on /admin, the new one works', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-rotate-'));
    const dataDir = path.join(dir, 'data');
    service = await startServer({ dataDir, port: 0, host: '127.0.0.1', log: () => {} });
    const oldToken = await cli(dataDir, 'admin-token');
    expect(oldToken).toBe(service.adminToken);
    // A dashboard signed in with the old credentials.
    const minted = await fetch(`${service.url}/admin/sign-in-codes`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${oldToken}` },
    });
    const { code } = (await minted.json()) as { code: string };
    const opened = await fetch(`${service.url}/admin/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    const { session } = (await opened.json()) as { session: string };
    expect(await adminStatus(service.url, session)).toBe(200);

    const printed = JSON.parse(await cli(dataDir, 'admin-token', '--rotate', '--json'));
    expect(printed).toMatchObject({ rotated: true, server_running: true });
    const newToken: string = printed.admin_token;
    expect(newToken).toMatch(/^spa_/);
    expect(newToken).not.toBe(oldToken);

    expect(await adminStatus(service.url, oldToken)).toBe(401);
    expect(await adminStatus(service.url, session)).toBe(401);
    expect(await adminStatus(service.url, newToken)).toBe(200);
    // What `admin-token` prints from now on is the token the server checks.
    expect(await cli(dataDir, 'admin-token')).toBe(newToken);
  });

  it('rotates the stored token when no server runs; the next start uses it', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-rotate-'));
    const dataDir = path.join(dir, 'data');
    const oldToken = await cli(dataDir, 'admin-token');
    const newToken = await cli(dataDir, 'admin-token', '--rotate');
    expect(newToken).toMatch(/^spa_/);
    expect(newToken).not.toBe(oldToken);
    service = await startServer({ dataDir, port: 0, host: '127.0.0.1', log: () => {} });
    expect(await adminStatus(service.url, oldToken)).toBe(401);
    expect(await adminStatus(service.url, newToken)).toBe(200);
  });
});

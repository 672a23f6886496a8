/**
 * `sheetport dashboard` against a running server (startServer, request log on), as a user runs it: the URL it
 * prints or opens carries a one-use sign-in code from that server, never the admin token; with no browser to
 * start (no display, no xdg-open) it prints the URL and says so instead of claiming to open it. Nothing of the
 * sign-in (token, code, session) reaches the data dir's logs.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../server/index.ts';
import { runCli } from '../helpers/cli.ts';

let dir: string;
let dataDir: string;
let service: RunningServer;
const secretsSeen: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-dashboard-cli-'));
  dataDir = path.join(dir, 'data');
  service = await startServer({ dataDir, port: 0, host: '127.0.0.1', log: () => {} });
  secretsSeen.push(service.adminToken);
});
afterAll(async () => {
  await service?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The CLI with this environment (no display unless given), its exit code and output. */
async function dashboard(env: NodeJS.ProcessEnv, ...args: string[]) {
  return runCli(['dashboard', ...args], {
    dataDir,
    env: { DISPLAY: undefined, WAYLAND_DISPLAY: undefined, ...env },
  });
}

function codeOf(url: string): string {
  const match = /^http:\/\/127\.0\.0\.1:\d+\/ui\/#code=(spc_[A-Za-z0-9_-]+)$/.exec(url);
  expect(match, url).not.toBeNull();
  const code = match?.[1] ?? '';
  secretsSeen.push(code);
  return code;
}

async function signIn(code: string): Promise<number> {
  const res = await fetch(`${service.url}/admin/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  const body = (await res.json()) as { session?: string };
  if (body.session) secretsSeen.push(body.session);
  return res.status;
}

describe('sheetport dashboard', () => {
  it('--no-browser prints a URL with a one-use sign-in code, never the admin token', async () => {
    const r = await dashboard({}, '--no-browser');
    expect(r.code).toBe(0);
    const url = r.stdout.trim();
    expect(url).not.toContain(service.adminToken);
    const code = codeOf(url);
    expect(await signIn(code)).toBe(201);
    expect(await signIn(code)).toBe(401);
    // Each run mints its own code.
    const second = codeOf((await dashboard({}, '--no-browser')).stdout.trim());
    expect(second).not.toBe(code);
  });

  it('with no display, prints the URL (a fresh code) and says no browser was opened', async () => {
    const r = await dashboard({});
    expect(r.stdout).not.toMatch(/Opening/);
    expect(r.stderr).toMatch(/Could not open a browser \(no display/);
    expect(r.code).not.toBe(0);
    expect(await signIn(codeOf(r.stdout.trim()))).toBe(201);
  });

  it('with a display but no xdg-open to run, prints the URL and says so', async () => {
    const emptyBin = path.join(dir, 'empty-bin');
    const r = await dashboard({ DISPLAY: ':0', PATH: emptyBin });
    expect(r.stderr).toMatch(/Could not open a browser \(xdg-open: .*ENOENT/);
    expect(r.code).not.toBe(0);
    expect(await signIn(codeOf(r.stdout.trim()))).toBe(201);
  });

  it('--json gives the URL, when its code expires, and whether a browser opened', async () => {
    const r = await dashboard({}, '--no-browser', '--json');
    const printed = JSON.parse(r.stdout) as { url: string; expires_at: string; opened: boolean };
    expect(printed.opened).toBe(false);
    expect(Date.parse(printed.expires_at) - Date.now()).toBeLessThanOrEqual(60_000);
    codeOf(printed.url);
  });

  it('leaves no token, code or session in the data dir logs', async () => {
    const logs = path.join(dataDir, 'logs');
    // The request log is written in the background: wait until it holds the sign-in requests.
    const text = async () => {
      const names = await readdir(logs);
      const parts = await Promise.all(names.map((n) => readFile(path.join(logs, n), 'utf8')));
      return parts.join('\n');
    };
    await expect.poll(async () => (await text()).includes('/admin/session')).toBe(true);
    const all = await text();
    expect(secretsSeen.length).toBeGreaterThan(5);
    for (const secret of secretsSeen) expect(all).not.toContain(secret);
  });
});

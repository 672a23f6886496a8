/**
 * `<data dir>/server.json`: where a running server listens, written (0600) when it starts and removed when it
 * stops, so `sheetport dashboard` can find it. A crash leaves it behind; the reader checks the pid is alive.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isLoopbackName } from './lib/host-names.ts';

export const SERVER_INFO_FILE = 'server.json';

export interface ServerInfo {
  url: string;
  port: number;
  pid: number;
}

/** Where the admin surface answers: the server's URL when it names loopback, else 127.0.0.1 on its port. */
export function loopbackOrigin(url: string, port: number): string {
  const base = new URL(url);
  const host = base.hostname.replace(/^\[|\]$/g, '');
  return isLoopbackName(host) ? base.origin : `http://127.0.0.1:${port}`;
}

/**
 * The dashboard with a one-use sign-in code in its fragment (browsers never send a fragment; the page trades the
 * code for a session and removes it from the address bar). Never the admin token: it never travels in a URL.
 */
export function dashboardSignInUrl(url: string, port: number, code: string): string {
  return `${loopbackOrigin(url, port)}/ui/#code=${encodeURIComponent(code)}`;
}

export async function writeServerInfo(dataDir: string, info: ServerInfo): Promise<void> {
  const file = path.join(dataDir, SERVER_INFO_FILE);
  await writeFile(file, `${JSON.stringify(info)}\n`, { mode: 0o600 });
}

/** Removes the file only if it is still this process's (a second server on the same data dir may own it now). */
export async function removeServerInfo(dataDir: string, pid: number): Promise<void> {
  const info = await readServerInfo(dataDir);
  if (info?.pid === pid) await rm(path.join(dataDir, SERVER_INFO_FILE), { force: true });
}

export async function readServerInfo(dataDir: string): Promise<ServerInfo | null> {
  try {
    const v = JSON.parse(await readFile(path.join(dataDir, SERVER_INFO_FILE), 'utf8')) as Partial<ServerInfo>;
    if (typeof v.url !== 'string' || typeof v.port !== 'number' || typeof v.pid !== 'number') return null;
    return { url: v.url, port: v.port, pid: v.pid };
  } catch {
    return null;
  }
}

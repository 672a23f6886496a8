/**
 * The server running on a data dir, found through `<data dir>/server.json`, and asked over loopback with the
 * admin token: sign-in codes and rotations live in that server's memory, so the CLI cannot make them itself.
 * Secrets travel in the Authorization header and the body, never in a URL.
 */
import { loopbackOrigin, readServerInfo, type ServerInfo } from '../server-info.ts';
import { CliError } from './kit.ts';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live server on this data dir, or null (no server.json, or one a crashed server left behind). */
export async function findRunningServer(dataDir: string): Promise<ServerInfo | null> {
  const info = await readServerInfo(dataDir);
  return info && isAlive(info.pid) ? info : null;
}

/** `POST <path>` on the running server's admin API; its JSON answer, or a CliError saying what went wrong. */
export async function askRunningServer<T>(info: ServerInfo, adminToken: string, path: string): Promise<T> {
  const origin = loopbackOrigin(info.url, info.port);
  let res: Response;
  try {
    res = await fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new CliError('upstream_unavailable', `The SheetPort server at ${origin} did not answer: ${reason}`);
  }
  const text = await res.text();
  if (!res.ok) {
    let message = `HTTP ${res.status}`;
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
    } catch {
      // not JSON: keep the status
    }
    throw new CliError('upstream_error', `The SheetPort server at ${origin} refused: ${message}`);
  }
  return JSON.parse(text) as T;
}

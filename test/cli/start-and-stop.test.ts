/**
 * Starting and stopping the service as a user does: `npm start` stopped by a SIGTERM sent to npm (npm passes it
 * to the shell that runs the script, which does not pass it on), and a busy port given to `demo` or `serve`.
 * Real processes: npm, the shell it runs, the CLI, a port held by another listener.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliSync } from '../helpers/cli.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let tmp: string;
const leftovers: number[] = [];
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-start-stop-')));
});
afterAll(() => {
  for (const pid of leftovers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone, as it should be.
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Wait until `check` holds, or give up after `ms` (a deadline for a hung process, not a speed check). */
async function eventually(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return check();
}

describe('npm start', () => {
  it('stops when npm gets SIGTERM, as the README says', async () => {
    const dataDir = path.join(tmp, 'demo');
    // npm as a user runs it: no settings inherited from an `npm test` that started vitest.
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of Object.keys(env)) if (/^npm_/i.test(name)) delete env[name];
    delete env.SHEETPORT_DATA_DIR;
    const npm = spawn('npm', ['start', '--', '--json', '--port', '0', '--data-dir', dataDir], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    npm.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    // npm prints its own header lines first; the demo's answer is the JSON line.
    const started = await eventually(() => /^\{.*\}$/m.test(out), 60_000);
    expect(started, out).toBe(true);
    const { url } = JSON.parse(/^\{.*\}$/m.exec(out)![0]) as { url: string };
    const { pid } = JSON.parse(fs.readFileSync(path.join(dataDir, 'server.json'), 'utf8')) as { pid: number };
    leftovers.push(pid);
    expect(pid).not.toBe(npm.pid);
    expect((await fetch(`${url}/`)).status).toBe(200);

    npm.kill('SIGTERM');
    expect(await eventually(() => !alive(pid), 30_000), `server pid ${pid} still running`).toBe(true);
    await expect(fetch(`${url}/`)).rejects.toThrow();
    // It stopped the way SIGTERM stops it: the file that says where it listens is gone.
    expect(fs.existsSync(path.join(dataDir, 'server.json'))).toBe(false);
  }, 120_000);
});

describe('a busy port', () => {
  it('gets the same one clear line from demo and serve', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const said = (command: string) => {
        return runCliSync([command, '--port', String(port)], {
          dataDir: path.join(tmp, command),
          cwd: tmp,
          timeoutMs: 60_000,
        });
      };
      const expected = {
        code: 1,
        stdout: '',
        stderr: `error: Port ${port} is already in use; pick another with --port.\n`,
      };
      expect(said('demo')).toEqual(expected);
      expect(said('serve')).toEqual(expected);
    } finally {
      holder.close();
    }
  }, 120_000);
});

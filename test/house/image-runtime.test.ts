/**
 * The image's runtime stage, assembled as the Dockerfile says without a container engine: exactly the paths its
 * COPY lines take from the build stage, put where they go, started with its CMD (on a free loopback port instead
 * of 0.0.0.0:8787) and its ENV (a temp dir for /data) as an unprivileged user, as `USER node` does (as root, the
 * tests start it as `nobody` through setpriv; as any other user, as that user). It must
 * serve the API, the dashboard and the OpenAPI document, answer its probes, and pass its own HEALTHCHECK command.
 * node_modules is the checkout's (a link, not a pruned copy); that pruning keeps what runs is checked in
 * deploy-files.test.ts (every package the server imports is a production dependency).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  chownSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv } from '../helpers/cli.ts';
import { copies, dockerfileStages, execForm, REPO_ROOT, stageEnv } from '../helpers/dockerfile.ts';

const run = promisify(execFile);
/** The unprivileged user the stage runs as here when the tests run as root (nobody), standing in for `node`. */
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const IMAGE_PORT = '8787';

const runtime = dockerfileStages().at(-1) ?? [];
const workdir = runtime.filter((i) => i.keyword === 'WORKDIR').at(-1)?.args ?? '/';

let dir: string;
let dataDir: string;
let appDir: string;
let child: ChildProcess;
let url: string;
let port: number;

/** The stage's files: each COPY source from the build stage (the checkout here) at its destination. */
function assemble(): void {
  for (const copy of copies(runtime)) {
    expect(copy.from, 'every file of the runtime stage comes from the build stage').toBe('build');
    for (const source of copy.sources) {
      const inRepo = path.relative('/app', source);
      const dest = copy.dest.endsWith('/')
        ? path.join(appDir, path.relative(workdir, path.resolve(workdir, copy.dest)), path.basename(inRepo))
        : path.join(appDir, path.relative(workdir, path.resolve(workdir, copy.dest)));
      mkdirSync(path.dirname(dest), { recursive: true });
      if (inRepo === 'node_modules') symlinkSync(path.join(REPO_ROOT, inRepo), dest);
      else cpSync(path.join(REPO_ROOT, inRepo), dest, { recursive: true });
    }
  }
}

/** The CMD with the port and host a test can use, and `--json` to learn the port. */
function command(): string[] {
  const cmd = execForm(runtime.find((i) => i.keyword === 'CMD')?.args ?? '') ?? [];
  const args = cmd.map((a, i) => (cmd[i - 1] === '--port' ? '0' : cmd[i - 1] === '--host' ? '127.0.0.1' : a));
  return [...args, '--json'];
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sheetport-image-'));
  chmodSync(dir, 0o755);
  appDir = path.join(dir, 'app');
  dataDir = path.join(dir, 'data');
  mkdirSync(dataDir);
  if (asRoot) chownSync(dataDir, NOBODY, NOBODY);
  assemble();
  const env = Object.fromEntries(
    Object.entries(stageEnv(runtime)).map(([k, v]) => [k, v === '/data' ? dataDir : v]),
  );
  const [program = 'node', ...args] = command();
  const asUser = asRoot ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'] : [];
  child = spawn(asUser[0] ?? program, [...asUser.slice(1), ...(asUser.length ? [program] : []), ...args], {
    cwd: appDir,
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await Promise.race([
    once(child.stdout!.setEncoding('utf8'), 'data'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`the image's CMD exited ${code} before it listened`);
    }),
  ])) as [string];
  ({ url, port } = JSON.parse(line.split('\n')[0]!) as { url: string; port: number });
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the image's runtime stage", () => {
  it('serves its probes, the OpenAPI document and the dashboard as an unprivileged user', async () => {
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ready', loading: 0 });
    const doc = await fetch(`${url}/openapi.json`);
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as { openapi: string }).openapi).toMatch(/^3\.1/);
    const ui = await fetch(`${url}/ui/`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toMatch(/<!doctype html>/i);
    const api = await fetch(`${url}/v1/spreadsheets`);
    expect(api.status).toBe(401);
    // setpriv became the server (exec): the process answering is not root.
    const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
    expect(Number(uid)).not.toBe(0);
  });

  it('passes its own HEALTHCHECK command, and that command fails when nothing answers', async () => {
    const check = runtime.find((i) => i.keyword === 'HEALTHCHECK')?.args ?? '';
    const argv = execForm(check.slice(check.indexOf('CMD') + 3).trim()) ?? [];
    expect(argv.join(' ')).toContain(`:${IMAGE_PORT}/`);
    const on = (p: number) => argv.map((a) => a.replace(`:${IMAGE_PORT}/`, `:${p}/`));
    const [program = 'node', ...args] = on(port);
    await expect(run(program, args, { cwd: appDir })).resolves.toBeDefined();
    // A port nothing listens on: the check must say unhealthy, not hang or pass.
    const [p2 = 'node', ...a2] = on(1);
    await expect(run(p2, a2, { cwd: appDir, timeout: 10_000 })).rejects.toMatchObject({ code: 1 });
  });
});

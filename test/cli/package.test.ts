import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
let tmp: string | undefined;
let server: ChildProcess | undefined;
afterAll(async () => {
  if (server && server.exitCode === null) server.kill('SIGKILL');
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** npm as a user runs it: no settings inherited from an `npm test` that started vitest. */
function npmEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env))
    if (/^npm_(config_(prefix|global)|lifecycle|package)/i.test(name)) delete env[name];
  delete env.SHEETPORT_DATA_DIR;
  return env;
}

describe('the installable package', () => {
  it('packs with its build, installs from the tarball, and the installed sheetport runs --version, serve and a request', async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'sheetport-pack-'));
    const env = npmEnv();
    const version = JSON.parse(await readFile('package.json', 'utf8')).version as string;

    // npm pack runs prepack (the build) first, as it does for a publish.
    const packed = JSON.parse(
      (await exec('npm', ['pack', '--json', '--pack-destination', tmp], { env, maxBuffer: 1 << 24 })).stdout,
    ) as { filename: string; files: { path: string }[] }[];
    const files = packed[0]!.files.map((f) => f.path);
    expect(files).toContain('bin/sheetport.js');
    // The build's bundle, its entries and worker threads by name, and not the files it was made of.
    for (const entry of ['cli', 'small-footprint-first', 'stop-with-parent', 'parse-worker', 'piece-thread'])
      expect(files).toContain(`dist/bundle/${entry}.js`);
    expect(files).toContain('dist/bundle/csv-part-thread.js');
    expect(files).toContain('dist/bundle/kept-segments-thread.js');
    expect(files.filter((f) => f.startsWith('dist/server/'))).toEqual([]);
    expect(files).toContain('docs/openapi.json');
    expect(files.filter((f) => f.startsWith('test/') || f.startsWith('server/'))).toEqual([]);

    // Install into a private prefix, from the local npm cache where it can (the checkout's `npm ci` filled it).
    const prefix = path.join(tmp, 'prefix');
    await exec(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        path.join(tmp, packed[0]!.filename),
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
      ],
      { env, maxBuffer: 1 << 24 },
    );
    const bin = path.join(prefix, 'bin', 'sheetport');

    expect((await exec(bin, ['--version'], { env })).stdout.trim()).toBe(version);

    const dataDir = path.join(tmp, 'data');
    server = spawn(bin, ['serve', '--port', '0', '--data-dir', dataDir], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    server.stdout!.setEncoding('utf8');
    server.stdout!.on('data', (chunk: string) => {
      out += chunk;
    });
    while (!out.includes('demo)')) await once(server.stdout!, 'data');
    const url = /listening on (\S+)/.exec(out)![1]!;
    // The next steps name the installed command.
    expect(out).toContain(`sheetport --data-dir ${dataDir} connect`);

    const cli = async (...args: string[]) =>
      JSON.parse((await exec(bin, [...args, '--json', '--data-dir', dataDir], { env })).stdout);
    const csv = path.join(tmp, 'team.csv');
    await writeFile(csv, 'name,age\nAnn,31\n');
    const connection = await cli('connect', csv);
    const { key } = await cli('keys', 'create');
    const res = await fetch(`${url}/api/spreadsheets/${connection.user_key}/team`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ name: 'Ann', age: 31 }]);
    // The OpenAPI document ships too and is found from dist/.
    expect((await fetch(`${url}/openapi.json`)).status).toBe(200);

    server.kill('SIGTERM');
    expect((await once(server, 'exit'))[0]).toBe(0);

    // The installed demo keeps its data in the OS app-data folder (not inside the package) and prints the
    // installed command in its CLI line.
    const xdg = path.join(tmp, 'xdg');
    const demo = spawn(bin, ['demo', '--json', '--port', '0'], {
      env: { ...env, XDG_CONFIG_HOME: xdg },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    server = demo;
    const [line] = (await once(demo.stdout!, 'data')) as [Buffer];
    const info = JSON.parse(line.toString()) as { data_dir: string; cli: string };
    expect(info.data_dir).toBe(path.join(xdg, 'SheetPort-demo'));
    expect(info.cli).toBe(`sheetport --data-dir ${info.data_dir} keys list`);
    demo.kill('SIGTERM');
    await once(demo, 'exit');
  }, 240_000);
});

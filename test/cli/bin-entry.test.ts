/**
 * Which code `bin/sheetport.js` runs: the TypeScript source in a checkout, the build's bundle (`dist/bundle/`)
 * when SHEETPORT_FROM_BUILD=1 (what the benchmarks measure, as an installed copy runs). The real bin file, copied
 * into a temporary tree whose `server/` and `dist/bundle/` each hold a CLI that says which it is.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = path.resolve(import.meta.dirname, '../../bin/sheetport.js');
const tree = mkdtempSync(path.join(tmpdir(), 'sheetport-bin-'));
afterAll(() => rmSync(tree, { recursive: true, force: true }));

function writeTree(withBuild: boolean): void {
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(path.join(tree, 'bin'), { recursive: true });
  copyFileSync(BIN, path.join(tree, 'bin', 'sheetport.js'));
  copyFileSync(
    path.join(path.dirname(BIN), 'malloc-tunables.js'),
    path.join(tree, 'bin', 'malloc-tunables.js'),
  );
  writeFileSync(path.join(tree, 'package.json'), '{"type":"module"}');
  writeEntries('server', 'ts', 'cli/');
  // The bundle holds every entry in one folder, by its own name.
  if (withBuild) writeEntries('dist/bundle', 'js', '');
}

function writeEntries(dir: string, ext: string, cliFolder: string): void {
  mkdirSync(path.join(tree, dir, 'cli'), { recursive: true });
  writeFileSync(path.join(tree, dir, `small-footprint-first.${ext}`), 'export {};\n');
  writeFileSync(path.join(tree, dir, `${cliFolder}stop-with-parent.${ext}`), 'export {};\n');
  writeFileSync(
    path.join(tree, dir, `cli.${ext}`),
    `export async function main() { process.stdout.write(${JSON.stringify(dir)}); return 0; }\n`,
  );
}

/** The test's own environment without the compile cache's variables, then `env`. */
function envWith(env: Record<string, string>): NodeJS.ProcessEnv {
  const { NODE_COMPILE_CACHE: _cache, NODE_DISABLE_COMPILE_CACHE: _off, ...rest } = process.env;
  return { ...rest, SHEETPORT_FROM_BUILD: '', ...env };
}

function run(env: Record<string, string>): { out: string; status: number } {
  try {
    const out = execFileSync(process.execPath, [path.join(tree, 'bin', 'sheetport.js')], {
      env: envWith(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { out: out.toString(), status: 0 };
  } catch (err) {
    const e = err as { stderr: Buffer; status: number };
    return { out: e.stderr.toString(), status: e.status };
  }
}

describe('bin/sheetport.js', () => {
  it('runs the source in a checkout, and the build when SHEETPORT_FROM_BUILD=1', () => {
    writeTree(true);
    expect(run({})).toEqual({ out: 'server', status: 0 });
    expect(run({ SHEETPORT_FROM_BUILD: '1' })).toEqual({ out: 'dist/bundle', status: 0 });
  });

  it("keeps the modules' compiled code in the user's cache folder, where the CLI's threads find it too", () => {
    writeTree(true);
    // The CLI of this tree says where its process was told the cache is (what its threads inherit).
    writeFileSync(
      path.join(tree, 'dist/bundle/cli.js'),
      'export async function main() { process.stdout.write(String(process.env.NODE_COMPILE_CACHE)); return 0; }\n',
    );
    const home = path.join(tree, 'cache-home');
    const folder = path.join(home, 'sheetport', 'compile-cache'); // Linux's place, under XDG_CACHE_HOME
    expect(run({ SHEETPORT_FROM_BUILD: '1', XDG_CACHE_HOME: home })).toEqual({ out: folder, status: 0 });
    const versions = readdirSync(folder);
    expect(versions).toHaveLength(1); // one folder per Node version, holding one file per module compiled
    expect(readdirSync(path.join(folder, versions[0] as string)).length).toBeGreaterThan(0);

    rmSync(home, { recursive: true, force: true });
    const off = run({ SHEETPORT_FROM_BUILD: '1', XDG_CACHE_HOME: home, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(off).toEqual({ out: 'undefined', status: 0 });
    expect(existsSync(home)).toBe(false);
  });

  it.runIf(process.platform === 'linux')(
    "runs with glibc's allocator told to give memory back: the same process, started again once",
    () => {
      writeTree(true);
      // The CLI of this tree says its process id and the allocator's settings it was started with.
      writeFileSync(
        path.join(tree, 'dist/bundle/cli.js'),
        'export async function main() { process.stdout.write(process.pid + " " + process.env.GLIBC_TUNABLES); return 0; }\n',
      );
      const started = (env: Record<string, string>) => {
        const { pid, stdout, status } = spawnSync(
          process.execPath,
          [path.join(tree, 'bin', 'sheetport.js')],
          {
            env: envWith({ SHEETPORT_FROM_BUILD: '1', ...env }),
          },
        );
        expect(status).toBe(0);
        const [seenPid, tunables] = stdout.toString().split(' ');
        return { samePid: Number(seenPid) === pid, tunables };
      };
      const plain = { GLIBC_TUNABLES: '', MALLOC_ARENA_MAX: '', MALLOC_MMAP_THRESHOLD_: '' };
      expect(started(plain)).toEqual({
        samePid: true,
        tunables: 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=1048576',
      });
      // Other tunables are kept; a malloc setting of the user's own wins, and then nothing starts again.
      expect(started({ ...plain, GLIBC_TUNABLES: 'glibc.pthread.rseq=0' }).tunables).toBe(
        'glibc.pthread.rseq=0:glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=1048576',
      );
      expect(started({ ...plain, GLIBC_TUNABLES: 'glibc.malloc.arena_max=4' }).tunables).toBe(
        'glibc.malloc.arena_max=4',
      );
      expect(started({ ...plain, MALLOC_ARENA_MAX: '8' }).tunables).toBe('');
    },
  );

  it('says a build is missing when asked for one that is not there', () => {
    writeTree(false);
    const { out, status } = run({ SHEETPORT_FROM_BUILD: '1' });
    expect(status).toBe(1);
    expect(out).toContain('no compiled build (dist/)');
  });
});

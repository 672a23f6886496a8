/**
 * Which code `bin/sheetport.js` runs: the TypeScript source in a checkout, the build's bundle (`dist/bundle/`)
 * when SHEETPORT_FROM_BUILD=1 (what the benchmarks measure, as an installed copy runs). The real bin file, copied
 * into a temporary tree whose `server/` and `dist/bundle/` each hold a CLI that says which it is.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

function run(env: Record<string, string>): { out: string; status: number } {
  try {
    const out = execFileSync(process.execPath, [path.join(tree, 'bin', 'sheetport.js')], {
      env: { ...process.env, SHEETPORT_FROM_BUILD: '', ...env },
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

  it('says a build is missing when asked for one that is not there', () => {
    writeTree(false);
    const { out, status } = run({ SHEETPORT_FROM_BUILD: '1' });
    expect(status).toBe(1);
    expect(out).toContain('no compiled build (dist/)');
  });
});

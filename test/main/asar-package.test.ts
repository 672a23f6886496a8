/**
 * The packed tray app, built for real: electron-builder with electron-builder.yml (its own @electron/asar
 * writes app.asar and app.asar.unpacked/), with a stand-in for Electron's binary, which cannot be downloaded
 * here (scripts/asar-contents.ts). Then the compiled main-process code's path logic runs against that archive
 * in a plain `node` process started in the packed app's own folder, so nothing resolves from the checkout's
 * node_modules:
 * - the parse worker's URL computed for a module inside app.asar is its unpacked copy, and a real worker thread
 *   started there parses a real .xlsx, every import it makes resolving inside app.asar.unpacked/;
 * - the dashboard folder is the unpacked renderer/dist; docs/openapi.json and package.json are found inside the
 *   archive (read by the main thread through Electron's archive-aware fs; here through @electron/asar);
 * - better-sqlite3 opens a database from its unpacked copy, and every .node file is unpacked.
 * What is not run: Electron itself (its asar-aware fs and ES module loader).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { extractFile } from '@electron/asar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveEntries, type PackedApp, packForInspection } from '../../scripts/asar-contents.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../..');
const temp = mkdtempSync(path.join(os.tmpdir(), 'sheetport-asar-'));
let packed: PackedApp;

beforeAll(async () => {
  if (!existsSync(path.join(repo, 'renderer/dist/index.html'))) throw new Error('run npm run build:ui first');
  // What `npm run dist` packs: the main process and the server compiled to dist/.
  await run(
    process.execPath,
    [path.join(repo, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.main.json'],
    {
      cwd: repo,
    },
  );
  packed = await packForInspection(repo, path.join(temp, 'pack'));
}, 180_000);
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/**
 * Runs in the packed app: imports the compiled modules from app.asar.unpacked/ (real files) and hands them the
 * URLs their twins inside app.asar have, the URLs they have when Electron loads them from the archive.
 */
const PROBE = `
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
const [resources, asarLib, workbook] = process.argv.slice(2);
const archive = path.join(resources, 'app.asar');
const unpacked = path.join(resources, 'app.asar.unpacked');
const inArchive = (rel) => pathToFileURL(path.join(archive, rel)).href;
const onDisk = (rel) => pathToFileURL(path.join(unpacked, rel)).href;
const asar = createRequire(import.meta.url)(asarLib);
// What Electron's fs answers: a path inside app.asar exists when the archive's header lists it.
const exists = (file) => {
  if (!file.startsWith(archive + path.sep)) return existsSync(file);
  try { asar.statFile(archive, path.relative(archive, file)); return true; } catch { return false; }
};
const offThread = await import(onDisk('dist/server/sources/workbook/guard/parse-off-thread.js'));
const { defaultUiDir } = await import(onDisk('dist/server/http/ui-dir.js'));
const { findPackageFile } = await import(onDisk('dist/server/lib/package-file.js'));
const { resolveFileLimits } = await import(onDisk('dist/server/config.js'));
const { engineNamed } = await import(onDisk('dist/server/sources/workbook/engines.js'));
const guard = 'dist/server/sources/workbook/guard/parse-off-thread.js';
const payload = await offThread.parseOffThread({
  engine: 'xlsx', filePath: workbook, bytes: readFileSync(workbook), limits: resolveFileLimits({}, {}),
});
const tabs = (await engineNamed('xlsx').received(payload)).tabs;
const Database = createRequire(onDisk('dist/server/store/db.js'))('better-sqlite3');
const db = new Database(':memory:');
const sqlite = db.prepare('select sqlite_version() as v').get().v;
db.close();
console.log(JSON.stringify({
  workerFromArchive: fileURLToPath(offThread.parseWorkerUrl(inArchive(guard))),
  workerFromDisk: fileURLToPath(offThread.parseWorkerUrl(onDisk(guard))),
  tabs: tabs.map((t) => ({ name: t.name, header: t.header, rows: t.typed.length, first: t.typed[0] })),
  uiFromArchive: defaultUiDir(inArchive('dist/server/http/ui-dir.js'), exists),
  uiFromDisk: defaultUiDir(onDisk('dist/server/http/ui-dir.js'), exists),
  openapiFromArchive: findPackageFile('docs/openapi.json', inArchive('dist/server/lib/package-file.js'), exists),
  openapiFromDisk: findPackageFile('docs/openapi.json', onDisk('dist/server/lib/package-file.js'), exists),
  packageJson: findPackageFile('package.json', onDisk('dist/server/lib/package-file.js'), exists),
  sqliteAddon: Object.keys(createRequire(import.meta.url).cache).find((k) => k.endsWith('.node')),
  sqlite,
}));
`;

describe('the tray app packed into app.asar', () => {
  it('holds the entry, the preload, the icons and the documents the main thread reads inside the archive', () => {
    const entries = new Map(archiveEntries(packed.archive).map((e) => [e.path, e]));
    const manifest = JSON.parse(extractFile(packed.archive, 'package.json').toString()) as { main: string };
    expect(manifest.main).toBe('dist/main/index.js');
    for (const file of [
      'dist/main/index.js',
      'dist/main/preload.cjs',
      'dist/main/sqlite-binding.js',
      'docs/openapi.json',
      'assets/icons/32x32.png',
    ])
      expect(entries.get(file)?.unpacked, file).toBe(false);
    // Native addons are all unpacked; nothing from the checkout's dev tooling or the Electron cache is packed.
    const addons = [...entries.values()].filter((e) => e.path.endsWith('.node'));
    expect(addons.length).toBeGreaterThan(0);
    expect(addons.filter((e) => !e.unpacked)).toEqual([]);
    expect(
      [...entries.keys()].filter((p) => /node_modules\/(\.cache|electron|vitest|typescript)\//.test(p)),
    ).toEqual([]);
    expect([...entries.keys()].filter((p) => p.startsWith('node_modules/better-sqlite3/deps/'))).toEqual([]);
  });

  it('runs the parse worker, serves the dashboard and finds its documents through the compiled path logic', async () => {
    const workbook = await writePeopleWorkbook(temp);
    // A file, not `-e`: worker threads inherit the process's flags, and `--input-type` is refused there.
    const probe = path.join(temp, 'probe.mjs');
    writeFileSync(probe, PROBE);
    const { stdout } = await run(
      process.execPath,
      [probe, packed.resources, path.join(repo, 'node_modules/@electron/asar'), workbook],
      { cwd: packed.resources },
    );
    const seen = JSON.parse(stdout) as Record<string, unknown>;
    const worker = path.join(packed.unpackedDir, 'dist/server/sources/workbook/guard/parse-worker.js');
    expect(seen.workerFromArchive).toBe(worker);
    expect(seen.workerFromDisk).toBe(worker);
    expect(seen.tabs).toEqual([
      expect.objectContaining({ name: 'People', rows: 6, first: expect.arrayContaining(['Ann', 31, true]) }),
      expect.objectContaining({ name: 'Café ☕ Tab', header: ['Key', 'Value'], rows: 1 }),
    ]);
    const ui = path.join(packed.unpackedDir, 'renderer/dist');
    expect(seen.uiFromArchive).toBe(ui);
    expect(seen.uiFromDisk).toBe(ui);
    const openapi = path.join(packed.archive, 'docs/openapi.json');
    expect(seen.openapiFromArchive).toBe(openapi);
    expect(seen.openapiFromDisk).toBe(openapi);
    expect(seen.packageJson).toBe(path.join(packed.archive, 'package.json'));
    expect(extractFile(packed.archive, 'docs/openapi.json').toString()).toBe(
      readFileSync(path.join(repo, 'docs/openapi.json'), 'utf8'),
    );
    expect(
      String(seen.sqliteAddon).startsWith(path.join(packed.unpackedDir, 'node_modules/better-sqlite3/')),
    ).toBe(true);
    expect(seen.sqlite).toMatch(/^3\.\d+\.\d+$/);
  });
});

/**
 * The layering and the store's and sources' boundaries are held by dependency-cruiser in `npm run lint`
 * (.dependency-cruiser.mjs; docs/architecture.md, "Layers"). Here the lint's own command runs on small trees laid
 * out like this one: a tree that keeps the rules passes, and a tree with an upward arrow, a cycle, a route that
 * opens the store, a kind imported past the registry and the tray reaching under the public entry fails, naming
 * each. And every module under server/ lies in exactly one layer, so no new folder escapes the rules.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.mjs');
const scripts: Record<string, string> = JSON.parse(
  readFileSync(path.join(ROOT, 'package.json'), 'utf8'),
).scripts;

interface Layer {
  name: string;
  paths: string[];
}

/** A tree that keeps every rule: each layer imports only below it, the store only from the wiring. */
const CLEAN: Record<string, string> = {
  'server/cli/kit.ts': "import '../context.ts';\nimport '../store/sqlite-store.ts';\n",
  'server/index.ts': "import './context.ts';\n",
  'server/context.ts': "import './http/rows.ts';\nimport './store/sqlite-store.ts';\n",
  'server/http/rows.ts':
    "import '../spreadsheets/spreadsheet.ts';\nimport type {} from '../repositories/keys.ts';\n",
  'server/spreadsheets/spreadsheet.ts': "import '../sources/index.ts';\nimport '../lib/turns.ts';\n",
  'server/rows/engine.ts': "import '../sources/source.ts';\n",
  'server/sources/index.ts': "import './workbook/kind.ts';\n",
  'server/sources/workbook/kind.ts': "import '../source.ts';\nimport './ooxml/read.ts';\n",
  'server/sources/workbook/ooxml/read.ts': "import '../../source.ts';\n",
  'server/sources/source.ts': 'export type CellValue = string;\n',
  'server/repositories/keys.ts': "import '../errors.ts';\n",
  'server/store/sqlite-store.ts': "import '../repositories/keys.ts';\n",
  'server/lib/turns.ts': "import '../errors.ts';\n",
  'server/lib/pacer.ts': 'export const pace = 1;\n',
  'server/errors.ts': 'export class AppError extends Error {}\n',
  'main/index.ts': "import '../server/index.ts';\n",
  'renderer/app.ts': 'export const page = 1;\n',
  'scripts/start-app.ts': "import '../main/index.ts';\n",
  'bin/sheetport.js': 'export {};\n',
};

/** Breaches of each kind of rule, to add to the clean tree, and the line the lint must answer each with. */
const BREACHES: { files: Record<string, string>; expected: string }[] = [
  {
    files: { 'server/rows/upward.ts': "import '../http/rows.ts';\n" },
    expected: 'down-from-services: server/rows/upward.ts → server/http/rows.ts',
  },
  {
    files: { 'server/lib/a.ts': "import './b.ts';\n", 'server/lib/b.ts': "import type {} from './a.ts';\n" },
    expected: 'no-cycles: server/lib/a.ts → server/lib/b.ts → server/lib/a.ts',
  },
  {
    files: { 'server/http/keys.ts': "import '../store/sqlite-store.ts';\n" },
    expected: 'store-behind-repositories: server/http/keys.ts → server/store/sqlite-store.ts',
  },
  {
    files: { 'server/spreadsheets/by-kind.ts': "import '../sources/workbook/kind.ts';\n" },
    expected: 'kinds-behind-the-registry: server/spreadsheets/by-kind.ts → server/sources/workbook/kind.ts',
  },
  {
    files: { 'main/deep.ts': "import '../server/context.ts';\n" },
    expected: 'main-through-the-public-entry: main/deep.ts → server/context.ts',
  },
];

const scratch = mkdtempSync(path.join(tmpdir(), 'sheetport-deps-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A tree of `files` in a fresh folder, with a config that is the house's (by default without its known exceptions,
 * which name files of this repository). Returns the folder.
 */
function tree(name: string, files: Record<string, string>, keepExceptions = false): string {
  const dir = path.join(scratch, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  const options = keepExceptions ? 'config.options' : '{ ...config.options, knownViolations: [] }';
  writeFileSync(
    path.join(dir, '.dependency-cruiser.mjs'),
    `import config from ${JSON.stringify(pathToFileURL(CONFIG).href)};\nexport default { ...config, options: ${options} };\n`,
  );
  return dir;
}

/** `npm run lint:deps`'s command, run in `dir` with this checkout's tools: its exit code and what it printed. */
async function lintDeps(dir: string): Promise<{ code: number; out: string }> {
  const env = {
    ...process.env,
    PATH: `${path.join(ROOT, 'node_modules/.bin')}${path.delimiter}${process.env.PATH}`,
  };
  try {
    const { stdout, stderr } = await exec('sh', ['-c', scripts['lint:deps'] as string], { cwd: dir, env });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout + failed.stderr };
  }
}

/** The violations the lint printed, one `rule: from → to` each (a cycle: `rule: a → b → a`, on one line). */
function violations(out: string): string[] {
  const joined = out.replace(/→ *\n\s+/g, '→ ');
  return [...joined.matchAll(/^\s*error (\S+: \S+(?: → \S+)+)$/gm)].map((m) => m[1] as string).sort();
}

describe('the dependency rules run in npm run lint', () => {
  it('lint runs lint:deps, which cruises the server, the tray, the dashboard and the scripts with the house config', () => {
    expect(scripts.lint).toContain('npm run lint:deps');
    expect(scripts['lint:deps']).toMatch(
      /^depcruise --config \.dependency-cruiser\.mjs .* server main renderer scripts/,
    );
  });

  it('a tree that keeps the rules passes', async () => {
    const { code, out } = await lintDeps(tree('clean', CLEAN));
    expect(out).toContain(`no dependency violations found (${Object.keys(CLEAN).length} modules`);
    expect(code).toBe(0);
  });

  it('an upward arrow, a cycle, a route opening the store, a kind past the registry, main/ under the entry: each fails', async () => {
    const broken = Object.assign({ ...CLEAN }, ...BREACHES.map((b) => b.files));
    const { code, out } = await lintDeps(tree('broken', broken));
    expect(violations(out)).toEqual(BREACHES.map((b) => b.expected).sort());
    expect(code).toBe(BREACHES.length);
  });

  it('an exception whose arrow is gone fails the lint until it is removed', async () => {
    const { code, out } = await lintDeps(tree('stale', CLEAN, true));
    expect(out).toMatch(/\d+ stale known violations/);
    expect(code).not.toBe(0);
  });
});

describe('every module under server/ lies in exactly one layer', async () => {
  const { LAYERS } = (await import(pathToFileURL(CONFIG).href)) as { LAYERS: Layer[] };
  const files = readdirSync(path.join(ROOT, 'server'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|mts|cts)$/.test(e.name))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
  const layersOf = (file: string) =>
    LAYERS.filter((layer) => layer.paths.some((p) => new RegExp(p).test(file))).map((layer) => layer.name);

  it('finds the files it checks', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(layersOf('server/http/auth.ts')).toEqual(['http']);
    expect(layersOf('server/store-pg/pool.ts')).toEqual(['store-engines']);
    expect(layersOf('main/index.ts')).toEqual(['front-ends']);
  });

  it('none is in no layer or in two', () => {
    const misplaced = files
      .filter((f) => layersOf(f).length !== 1)
      .map((f) => `${f}: ${layersOf(f).join(', ')}`);
    expect(misplaced).toEqual([]);
  });
});

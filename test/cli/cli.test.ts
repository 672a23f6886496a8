import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_FILE_NAME } from '../../server/store/db.ts';
import { type CliRun, cliError, runCliSync, succeeded } from '../helpers/cli.ts';

let tmp: string;
let dataDir: string;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-cli-')));
  dataDir = path.join(tmp, 'data');
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** `node bin/sheetport.js ...args` as a real child process, from the temp dir unless told. */
function run(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliRun {
  return runCliSync(args, { cwd: options.cwd ?? tmp, env: options.env });
}

/** Run with --json --data-dir and parse stdout; fails with stderr when the command failed. */
function ok<T = unknown>(args: string[]): T {
  const full = [...args, '--json', '--data-dir', dataDir];
  return JSON.parse(succeeded(full, run(full)).stdout) as T;
}

/** Expect exit 1 with exactly one line on stderr; with --json that line is an error envelope. */
function fails(args: string[], json = true): { code: string; message: string } {
  const full = json ? [...args, '--json', '--data-dir', dataDir] : [...args, '--data-dir', dataDir];
  return cliError(full, run(full), json);
}

async function writeXlsx(file: string): Promise<void> {
  const wb = new ExcelJS.Workbook();
  const orders = wb.addWorksheet('Orders');
  orders.addRow(['Id', 'Item', 'Qty']);
  orders.addRow([1, 'Pen', 3]);
  orders.addRow([2, 'Ink', 1]);
  const notes = wb.addWorksheet('Notes');
  notes.addRow(['Note']);
  notes.addRow(['hello']);
  await wb.xlsx.writeFile(file);
}

interface ConnectJson {
  user_key: string;
  spreadsheet_id: string;
  name: string;
  sheets: { sheet_id: string; name: string; row_count: number }[];
}

describe('sheetport connect / connections', () => {
  let xlsx: string;
  let csv: string;
  beforeAll(async () => {
    xlsx = path.join(tmp, 'orders.xlsx');
    await writeXlsx(xlsx);
    csv = path.join(tmp, 'people.csv');
    fs.writeFileSync(csv, 'name,age\nAnn,31\nBob,25\nCid,40\n');
  });

  it('connects an .xlsx and prints the spreadsheet and its sheets', () => {
    const out = ok<ConnectJson>(['connect', 'orders.xlsx']); // relative to cwd
    // The same shape as GET /v1/spreadsheets/{id}, plus where the file is and whether it was new.
    expect(Object.keys(out)).toEqual([
      'spreadsheet_id',
      'user_key',
      'name',
      'source',
      'public_read',
      'created_at',
      'sheets',
      'location',
      'created',
    ]);
    expect(out.spreadsheet_id).toMatch(/^wb_[A-Za-z0-9_-]{16}$/);
    expect(out.user_key).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(out.sheets.map((s) => [s.name, s.row_count])).toEqual([
      ['Orders', 2],
      ['Notes', 1],
    ]);
    for (const s of out.sheets) {
      expect(Object.keys(s)).toEqual(['sheet_id', 'name', 'header', 'row_count']);
      expect(s.sheet_id.startsWith(`${out.spreadsheet_id}~`)).toBe(true);
    }

    // Same file again (absolute path this time): the same connection, no duplicate.
    const again = ok<ConnectJson>(['connect', xlsx]);
    expect(again.spreadsheet_id).toBe(out.spreadsheet_id);
    expect(again.user_key).toBe(out.user_key);
  });

  it('connects a .csv', () => {
    const out = ok<ConnectJson>(['connect', csv]);
    expect(out.spreadsheet_id).toMatch(/^wb_/);
    expect(out.sheets).toHaveLength(1);
    expect(out.sheets[0]?.row_count).toBe(3);
  });

  it('prints a human summary without --json', () => {
    const r = run(['connect', csv, '--data-dir', dataDir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Already connected/);
    expect(r.stdout).toMatch(/spreadsheet_id: +wb_/);
    expect(r.stdout).toMatch(/3 rows/);
  });

  it('lists and removes connections', () => {
    const list = ok<Record<string, unknown>[]>(['connections', 'list']);
    expect(list).toHaveLength(2);
    expect(Object.keys(list[0]!)).toEqual([
      'spreadsheet_id',
      'user_key',
      'name',
      'source',
      'public_read',
      'created_at',
      'location',
    ]);
    expect(list.map((c) => c.location)).toEqual([xlsx, csv]);
    expect(list[0]).toMatchObject({ source: 'workbook', public_read: false });

    const table = run(['connections', 'list', '--data-dir', dataDir]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(String(list[0]!.spreadsheet_id));

    // Remove by userKey, then by spreadsheet id.
    const byUserKey = ok<{ spreadsheet_id: string }>(['connections', 'remove', String(list[1]!.user_key)]);
    expect(byUserKey.spreadsheet_id).toBe(list[1]!.spreadsheet_id);
    expect(ok<unknown[]>(['connections', 'list'])).toHaveLength(1);
    expect(fails(['connections', 'remove', String(list[1]!.spreadsheet_id)]).code).toBe(
      'spreadsheet_not_found',
    );
  });

  it('fails clearly for a missing file', () => {
    const err = fails(['connect', 'nope.xlsx']);
    expect(err.code).toBe('not_found');
    expect(err.message).toBe(`File not found: ${path.join(tmp, 'nope.xlsx')}`);
    expect(fails(['connect', 'nope.xlsx'], false).message).toMatch(/^File not found: /);
  });

  it('fails clearly for an unsupported file type or a directory', () => {
    const txt = path.join(tmp, 'notes.txt');
    fs.writeFileSync(txt, 'hi');
    expect(fails(['connect', txt]).message).toMatch(/Unsupported file type '\.txt'/);
    expect(fails(['connect', tmp]).message).toMatch(/^Not a file: /);
  });

  it('refuses a symlink to a non-workbook with the answer the file itself gets', () => {
    const txt = path.join(tmp, 'linked-notes.txt');
    fs.writeFileSync(txt, 'hi');
    const link = path.join(tmp, 'linked.xlsx');
    fs.symlinkSync(txt, link);
    const direct = fails(['connect', txt]);
    const viaLink = fails(['connect', link]);
    expect(direct.code).toBe('unsupported_media_type');
    // Code and every detail (the parameter) the same; only the message also names the link.
    expect({ ...viaLink, message: '' }).toEqual({ ...direct, message: '' });
    expect(viaLink.message).toMatch(/Unsupported file type '\.txt'/);
  });

  it('fails clearly for a corrupt workbook and registers nothing', () => {
    const bad = path.join(tmp, 'broken.xlsx');
    fs.writeFileSync(bad, 'this is not a zip file');
    const before = ok<unknown[]>(['connections', 'list']).length;
    const err = fails(['connect', bad]);
    expect(err.code).toBe('upstream_error');
    expect(err.message).toMatch(/broken\.xlsx/);
    expect(ok<unknown[]>(['connections', 'list'])).toHaveLength(before);
  });

  it('fails for removing an unknown connection', () => {
    expect(fails(['connections', 'remove', 'wb_nothing']).message).toMatch(/No connection .*wb_nothing/);
  });
});

describe('sheetport keys', () => {
  const keysDir = () => path.join(tmp, 'keys-data');
  const k = <T = unknown>(args: string[]) => {
    const r = run([...args, '--json', '--data-dir', keysDir()]);
    if (r.code !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout) as T;
  };
  const kFails = (args: string[]) => {
    const r = run([...args, '--json', '--data-dir', keysDir()]);
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    return (JSON.parse(lines[0]!) as { error: { code: string; message: string } }).error;
  };

  it('creates a key, shows it once, stores only its hash', () => {
    const created = k<{ id: string; key: string; scope: string; prefix: string }>([
      'keys',
      'create',
      '--name',
      'ci',
      '--scope',
      'read_write',
    ]);
    expect(Object.keys(created).slice(0, 3)).toEqual(['id', 'key', 'scope']);
    expect(created.id).toMatch(/^key_[A-Za-z0-9_-]{10}$/);
    expect(created.key).toMatch(/^sp_[A-Za-z0-9_-]{43}$/);
    expect(created.scope).toBe('read_write');
    expect(created.prefix).toBe(created.key.slice(0, 12));

    const bytes = fs
      .readdirSync(keysDir())
      .filter((f) => f.startsWith(DB_FILE_NAME))
      .map((f) => fs.readFileSync(path.join(keysDir(), f)));
    expect(Buffer.concat(bytes).includes(created.key)).toBe(false);

    const list = k<Record<string, unknown>[]>(['keys', 'list']);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      id: created.id,
      name: 'ci',
      prefix: created.prefix,
      scope: 'read_write',
    });
    expect(JSON.stringify(list)).not.toContain(created.key);

    const human = run(['keys', 'list', '--data-dir', keysDir()]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(created.id);
    expect(human.stdout).not.toContain(created.key);
  });

  it('prints the key with a cannot-be-shown-again note in human mode', () => {
    const r = run(['keys', 'create', '--data-dir', keysDir()]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/sp_[A-Za-z0-9_-]{43}/);
    expect(r.stdout).toMatch(/cannot be shown again/);
  });

  it('defaults to scope read and accepts the other options', () => {
    const created = k<Record<string, unknown>>([
      'keys',
      'create',
      '--allow-formulas',
      '--plan',
      'enterprise',
      '--per-second',
      '5',
      '--daily',
      '50',
    ]);
    expect(created).toMatchObject({
      scope: 'read',
      plan: 'enterprise',
      allow_formulas: true,
      limits: { per_second: 5, daily: 50 },
      connections: [],
    });
    // One shape with the admin API: effective limits only, no raw (null) overrides.
    expect(created).not.toHaveProperty('per_second');
    expect(created).not.toHaveProperty('daily');
  });

  it('limits a key to connections given by spreadsheet id or userKey', () => {
    // Register connections directly in the data dir (no workbook reading needed for this).
    const r = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { openSqliteRepositories } from ${JSON.stringify(fileURLToPath(new URL('../../server/store/sqlite-repositories.ts', import.meta.url)))};
         const repos = openSqliteRepositories(process.argv[1]);
         const s = repos.connections;
         const a = await s.create({ name: 'a', sourceKind: 'workbook', idPrefix: 'wb_', location: '/tmp/a.xlsx' });
         const b = await s.create({ name: 'b', sourceKind: 'workbook', idPrefix: 'wb_', location: '/tmp/b.xlsx' });
         console.log(JSON.stringify([a, b]));
         await repos.close();`,
        keysDir(),
      ],
      { encoding: 'utf8' },
    );
    const [a, b] = JSON.parse(r.stdout) as { spreadsheetId: string; userKey: string }[];
    const created = k<{ connections: string[] }>([
      'keys',
      'create',
      '--connection',
      a!.spreadsheetId,
      '--connection',
      b!.userKey,
    ]);
    expect(created.connections).toEqual([a!.spreadsheetId, b!.spreadsheetId].sort());
  });

  it('revokes a key', () => {
    const { id } = k<{ id: string }>(['keys', 'create']);
    const revoked = k<{ id: string; revoked_at: string }>(['keys', 'revoke', id]);
    expect(revoked.id).toBe(id);
    expect(Date.parse(revoked.revoked_at)).not.toBeNaN();
    const listed = k<{ id: string; revoked_at: string | null }[]>(['keys', 'list']).find((x) => x.id === id);
    expect(listed?.revoked_at).toBe(revoked.revoked_at);
    // Revoking again is not an error; the first timestamp stays.
    expect(k<{ revoked_at: string }>(['keys', 'revoke', id]).revoked_at).toBe(revoked.revoked_at);
  });

  it('rejects an unknown scope, an unknown connection and an unknown key id with one line and exit 1', () => {
    const count = k<unknown[]>(['keys', 'list']).length;
    expect(kFails(['keys', 'create', '--scope', 'admin'])).toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringMatching(/'admin' is invalid.*read, read_write/),
    });
    expect(kFails(['keys', 'create', '--connection', 'wb_unknown'])).toMatchObject({
      code: 'spreadsheet_not_found',
      message: "Unknown connection 'wb_unknown'.",
    });
    expect(kFails(['keys', 'revoke', 'key_unknown']).code).toBe('not_found');
    expect(kFails(['keys', 'create', '--daily', 'lots']).message).toMatch(/whole number/);
    expect(k<unknown[]>(['keys', 'list'])).toHaveLength(count);

    const human = run(['keys', 'create', '--scope', 'admin', '--data-dir', keysDir()]);
    expect(human.code).toBe(1);
    expect(human.stderr.trim().split('\n')).toHaveLength(1);
    expect(human.stderr).toMatch(/^error: option '--scope <scope>' argument 'admin' is invalid/);
  });
});

describe('sheetport (general)', () => {
  it('uses SHEETPORT_DATA_DIR when no --data-dir is given', () => {
    const envDir = path.join(tmp, 'env-data');
    const r = run(['keys', 'create', '--json'], { env: { SHEETPORT_DATA_DIR: envDir } });
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(envDir, DB_FILE_NAME))).toBe(true);
  });

  it('rejects unknown commands and options with one line', () => {
    const r = run(['frobnicate', '--json', '--data-dir', dataDir]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stderr).error.message).toMatch(/unknown command 'frobnicate'/);
    const opt = run(['keys', 'list', '--bogus', '--data-dir', dataDir]);
    expect(opt.code).toBe(1);
    expect(opt.stderr).toBe("error: unknown option '--bogus'\n");
  });

  it('prints help and exits 0', () => {
    const r = run(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: sheetport/);
  });

  it('reports a bad --port without starting anything', () => {
    const r = run(['serve', '--port', 'eighty', '--json', '--data-dir', dataDir]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr).error.message).toMatch(/port number/);
  });

  it('exports main() for in-process use', async () => {
    const { main } = await import('../../server/cli.ts');
    const dir = path.join(tmp, 'in-process');
    const write = process.stdout.write;
    let captured = '';
    process.stdout.write = ((chunk: string) => {
      captured += chunk;
      return true;
    }) as typeof process.stdout.write;
    let code: number;
    try {
      code = await main(['keys', 'list', '--json', '--data-dir', dir]);
    } finally {
      process.stdout.write = write;
    }
    expect(code).toBe(0);
    expect(JSON.parse(captured)).toEqual([]);
  });
});

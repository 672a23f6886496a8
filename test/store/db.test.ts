import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DB_FILE_NAME, migrate, openDatabase, userVersion } from '../../server/store/db.ts';
import { MIGRATIONS } from '../../server/store/migrations.ts';

const DB_MODULE = fileURLToPath(new URL('../../server/store/db.ts', import.meta.url));
const LATEST = MIGRATIONS.at(-1)!.version;
const TABLE_COUNT = 13;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-db-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function tables(db: Database.Database): string[] {
  return db
    .prepare<[], string>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .pluck()
    .all();
}

describe('openDatabase', () => {
  it('creates the data dir and file, sets the pragmas and migrates to the latest version', () => {
    const dataDir = path.join(dir, 'nested', 'data');
    const db = openDatabase(dataDir);
    try {
      expect(fs.existsSync(path.join(dataDir, DB_FILE_NAME))).toBe(true);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
      expect(userVersion(db)).toBe(LATEST);
      expect(tables(db)).toEqual([
        'api_key_connections',
        'api_keys',
        'baseline_redo',
        'change_log',
        'checkpoint_parts',
        'connections',
        'deliveries',
        'delivery_attempts',
        'idempotency_keys',
        'tab_baselines',
        'tab_checkpoints',
        'usage_daily',
        'webhooks',
      ]);
    } finally {
      db.close();
    }
  });

  it('is idempotent: reopening and opening twice at once leave the schema alone', () => {
    const first = openDatabase(dir);
    first
      .prepare("INSERT INTO connections VALUES ('wb_x', 'uk', 'n', 'workbook', '/x.xlsx', 0, 'now')")
      .run();
    const second = openDatabase(dir); // while the first is still open
    try {
      expect(userVersion(second)).toBe(LATEST);
      expect(second.prepare('SELECT id FROM connections').pluck().all()).toEqual(['wb_x']);
      migrate(second); // running again is a no-op
      expect(userVersion(first)).toBe(LATEST);
    } finally {
      first.close();
      second.close();
    }
    const third = openDatabase(dir);
    expect(tables(third)).toHaveLength(TABLE_COUNT);
    third.close();
  });

  it('is safe when several processes open a fresh database at the same moment', async () => {
    const script = `
      import { openDatabase, userVersion } from ${JSON.stringify(DB_MODULE)};
      const db = openDatabase(process.argv[1]);
      process.stdout.write(String(userVersion(db)));
      db.close();
    `;
    const runs = Array.from(
      { length: 6 },
      () =>
        new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script, dir]);
          let out = '';
          let err = '';
          child.stdout.on('data', (d) => (out += d));
          child.stderr.on('data', (d) => (err += d));
          child.on('close', (code) => resolve({ code, out, err }));
        }),
    );
    const results = await Promise.all(runs);
    for (const r of results) {
      expect(r.err.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, '')).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).toBe(String(LATEST));
    }
    const db = openDatabase(dir);
    expect(userVersion(db)).toBe(LATEST);
    expect(tables(db)).toHaveLength(TABLE_COUNT);
    db.close();
  });

  it('refuses a database written by a newer SheetPort', () => {
    const raw = new Database(path.join(dir, DB_FILE_NAME));
    raw.pragma(`user_version = ${LATEST + 1}`);
    raw.close();
    expect(() => openDatabase(dir)).toThrow(/newer than this SheetPort understands/);
  });
});

describe('migrate', () => {
  it('applies each migration in a transaction: a failing one leaves no trace', () => {
    const db = new Database(':memory:');
    const broken = [
      ...MIGRATIONS,
      { version: LATEST + 1, name: 'broken', sql: 'CREATE TABLE half (a); SELECT no_such_column FROM half;' },
    ];
    expect(() => migrate(db, broken)).toThrow(new RegExp(`migration ${LATEST + 1} \\(broken\\) failed`));
    expect(userVersion(db)).toBe(LATEST);
    expect(tables(db)).not.toContain('half');
    db.close();
  });

  it('applies new migrations on top of an existing database', () => {
    const db = new Database(':memory:');
    migrate(db);
    const next = [...MIGRATIONS, { version: LATEST + 1, name: 'extra', sql: 'CREATE TABLE extra (a);' }];
    migrate(db, next);
    migrate(db, next);
    expect(userVersion(db)).toBe(LATEST + 1);
    expect(tables(db)).toContain('extra');
    db.close();
  });

  it('rejects migrations that are out of order or have gaps', () => {
    const db = new Database(':memory:');
    expect(() => migrate(db, [{ version: 2, name: 'x', sql: '' }])).toThrow(/numbered 1, 2, 3/);
    expect(userVersion(db)).toBe(0);
    db.close();
  });
});

describe('data dir', () => {
  it('is created private to the user', () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-private-'));
    const dataDir = path.join(parent, 'nested', 'data');
    openDatabase(dataDir).close();
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    fs.rmSync(parent, { recursive: true, force: true });
  });
});

describe('a second handle in the same process', () => {
  // POSIX file locks belong to the process: closing any descriptor of the database file drops every lock its
  // connections hold, and another process that then closes its own connection believes it was the last one,
  // checkpoints and deletes the WAL under the first (lost writes, a corrupt index). `sheetport serve` opens a
  // second handle for its next-steps hint while the service's is open; python3's sqlite3 is the other process.
  it('leaves the first connection its locks: another process closing the database does not take the WAL away', () => {
    const first = openDatabase(dir);
    try {
      first
        .prepare(
          "INSERT INTO connections (id, name, source_kind, location, user_key, created_at) VALUES ('c1', 'n', 'workbook', '/x.csv', 'uk1', '2026-01-01T00:00:00Z')",
        )
        .run();
      openDatabase(dir).close();
      const other = spawnSync('python3', [
        '-c',
        'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("select count(*) from connections").fetchall(); c.close()',
        path.join(dir, DB_FILE_NAME),
      ]);
      expect(other.status).toBe(0);
      // Still the first connection's WAL, so a write made now is seen by a new reader in another process.
      first.prepare("UPDATE connections SET name = 'after' WHERE id = 'c1'").run();
      const seen = spawnSync('python3', [
        '-c',
        'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute("select name from connections").fetchone()[0])',
        path.join(dir, DB_FILE_NAME),
      ]);
      expect(seen.stdout.toString().trim()).toBe('after');
      expect(fs.existsSync(path.join(dir, `${DB_FILE_NAME}-wal`))).toBe(true);
    } finally {
      first.close();
    }
  });
});

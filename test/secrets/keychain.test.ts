/**
 * The keychain backend against a real Secret Service: each test starts a private session bus
 * (`dbus-run-session`) with GNOME Keyring unlocked in it, under a throwaway HOME, and runs SheetPort in a child
 * process there. `secret-tool` (libsecret's own client) checks independently what landed in the keychain.
 * Needs the Debian packages dbus, gnome-keyring and libsecret-tools (scripts/install-test-deps.sh installs them).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CHOOSE = fileURLToPath(new URL('../../server/secrets/choose.ts', import.meta.url));
const DB = fileURLToPath(new URL('../../server/store/db.ts', import.meta.url));
const REPOSITORIES = fileURLToPath(new URL('../../server/store/sqlite-repositories.ts', import.meta.url));
const REGISTER = fileURLToPath(new URL('../../server/webhooks/register.ts', import.meta.url));

let root: string;
let dataDir: string;
let home: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-keychain-'));
  dataDir = path.join(root, 'data');
  home = path.join(root, 'home');
  fs.mkdirSync(path.join(home, '.cache'), { recursive: true });
  fs.mkdirSync(path.join(home, '.local', 'share'), { recursive: true });
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** The environment of a login with no keychain preference: the test default (SHEETPORT_SECRETS=file) removed. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
  };
  env.XDG_RUNTIME_DIR = path.join(home, '.cache');
  delete env.SHEETPORT_SECRETS;
  delete env.DBUS_SESSION_BUS_ADDRESS;
  return env;
}

interface Run {
  status: number | null;
  out: string;
  err: string;
}

function node(script: string, withKeychain: boolean): Run {
  const args = ['--input-type=module', '-e', script, dataDir];
  const r = withKeychain
    ? spawnSync(
        'dbus-run-session',
        [
          '--',
          'sh',
          '-c',
          'printf pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"',
          'sh',
          process.execPath,
          ...args,
        ],
        { env: baseEnv(), encoding: 'utf8', timeout: 60_000 },
      )
    : spawnSync(process.execPath, args, { env: baseEnv(), encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

function lastJson(run: Run): Record<string, unknown> {
  const line = run.out.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new Error(`child printed no JSON (status ${run.status}):\n${run.out}\n${run.err}`);
  }
}

describe('the keychain backend', () => {
  it('is chosen where a real Secret Service answers: stores, reads back and deletes there', () => {
    const run = node(
      `
      import { execFileSync } from 'node:child_process';
      import { readFileSync } from 'node:fs';
      import { openSecretsProvider } from ${JSON.stringify(CHOOSE)};
      const dir = process.argv[1];
      const p = openSecretsProvider(dir);
      const id = JSON.parse(readFileSync(dir + '/secrets-provider.json', 'utf8')).id;
      const lookup = (name) => {
        try { return execFileSync('secret-tool', ['lookup', 'service', 'SheetPort', 'username', id + '/' + name], { encoding: 'utf8' }); }
        catch { return null; }
      };
      p.set('tunnel-token', 'tt_secret_value');
      const back = p.get('tunnel-token');
      const inKeychain = lookup('tunnel-token');
      const deleted = p.delete('tunnel-token');
      const afterDelete = p.get('tunnel-token');
      const inKeychainAfterDelete = lookup('tunnel-token');
      const deletedAgain = p.delete('tunnel-token');
      console.log(JSON.stringify({ kind: p.kind, back, inKeychain, deleted, afterDelete, inKeychainAfterDelete, deletedAgain }));
      `,
      true,
    );
    expect(lastJson(run)).toEqual({
      kind: 'keychain',
      back: 'tt_secret_value',
      inKeychain: 'tt_secret_value',
      deleted: true,
      afterDelete: null,
      inKeychainAfterDelete: null,
      deletedAgain: false,
    });
    const record = JSON.parse(fs.readFileSync(path.join(dataDir, 'secrets-provider.json'), 'utf8'));
    expect(record.kind).toBe('keychain');
    expect(fs.statSync(path.join(dataDir, 'secrets-provider.json')).mode & 0o777).toBe(0o600);
  });

  it('holds the data key of a database opened on it: no secrets file is written, webhook secrets still work', () => {
    const run = node(
      `
      import { execFileSync } from 'node:child_process';
      import { existsSync, readFileSync } from 'node:fs';
      import { openDatabase } from ${JSON.stringify(DB)};
      import { sqliteRepositoriesOver } from ${JSON.stringify(REPOSITORIES)};
      import { registerWebhook } from ${JSON.stringify(REGISTER)};
      const dir = process.argv[1];
      const db = openDatabase(dir);
      const store = sqliteRepositoriesOver(db, dir).webhooks;
      const { record, secret } = await registerWebhook(store, { url: 'https://example.com/h', spreadsheetId: 'wb_1', sheetName: 'S',
        sourceSheetId: '1', events: ['row.inserted'], apiKeyId: null });
      const id = JSON.parse(readFileSync(dir + '/secrets-provider.json', 'utf8')).id;
      const key = execFileSync('secret-tool', ['lookup', 'service', 'SheetPort', 'username', id + '/data-key'], { encoding: 'utf8' });
      const stored = db.prepare('SELECT secret FROM webhooks WHERE id = ?').pluck().get(record.id);
      console.log(JSON.stringify({ same: (await store.secretOf(record.id)) === secret, sealed: stored.startsWith('sp1:'),
        keyBytes: Buffer.from(key, 'base64').length, secretsFile: existsSync(dir + '/secrets.json') }));
      db.close();
      `,
      true,
    );
    expect(lastJson(run)).toEqual({ same: true, sealed: true, keyBytes: 32, secretsFile: false });
  });

  it('without a session bus, a new data dir gets the 0600 file (the kernel keyring does not count)', () => {
    const run = node(
      `
      import { openSecretsProvider } from ${JSON.stringify(CHOOSE)};
      const p = openSecretsProvider(process.argv[1]);
      p.set('tunnel-token', 'x');
      console.log(JSON.stringify({ kind: p.kind, back: p.get('tunnel-token') }));
      `,
      false,
    );
    expect(lastJson(run)).toEqual({ kind: 'file', back: 'x' });
    expect(fs.statSync(path.join(dataDir, 'secrets.json')).mode & 0o777).toBe(0o600);
  });

  it('a data dir recorded on the keychain refuses to start without it, naming the fix, and writes no file', () => {
    const setUp = `
      import { openDatabase } from ${JSON.stringify(DB)};
      openDatabase(process.argv[1]).close();
      console.log(JSON.stringify({ ok: true }));
    `;
    expect(lastJson(node(setUp, true))).toEqual({ ok: true });
    const later = node(setUp, false);
    expect(later.status).not.toBe(0);
    expect(later.err).toMatch(/The OS keychain did not answer/);
    expect(later.err).toMatch(/recorded in .*secrets-provider\.json/);
    expect(later.err).toMatch(/dbus-run-session/);
    expect(fs.existsSync(path.join(dataDir, 'secrets.json'))).toBe(false);
  });
});

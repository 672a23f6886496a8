import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSecretsProvider, SECRETS_RECORD_FILE_NAME } from '../../server/secrets/choose.ts';
import { FileSecretsProvider, SECRETS_FILE_NAME } from '../../server/secrets/file-provider.ts';
import { caught } from '../helpers/caught.ts';

const FILE_PROVIDER = fileURLToPath(new URL('../../server/secrets/file-provider.ts', import.meta.url));

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-secrets-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the file backend', () => {
  it('gets, sets and deletes named secrets in a 0600 file that a new instance reads back', () => {
    const p = new FileSecretsProvider(dir);
    expect(p.get('google:me@example.com')).toBeNull();
    p.set('google:me@example.com', '{"refresh_token":"r"}');
    p.set('tunnel-token', 't1');
    p.set('tunnel-token', 't2');
    expect(fs.statSync(path.join(dir, SECRETS_FILE_NAME)).mode & 0o777).toBe(0o600);
    const again = new FileSecretsProvider(dir);
    expect(again.get('google:me@example.com')).toBe('{"refresh_token":"r"}');
    expect(again.get('tunnel-token')).toBe('t2');
    expect(again.delete('tunnel-token')).toBe(true);
    expect(again.delete('tunnel-token')).toBe(false);
    expect(p.get('tunnel-token')).toBeNull();
    expect(fs.readdirSync(dir)).toEqual([SECRETS_FILE_NAME]); // no temp or lock file left behind
  });

  it('refuses names that are not plain', () => {
    expect(() => new FileSecretsProvider(dir).set('../x', 'v')).toThrow(/Invalid secret name/);
  });

  it('never overwrites a file it cannot read', () => {
    fs.writeFileSync(path.join(dir, SECRETS_FILE_NAME), '{ half', { mode: 0o600 });
    expect(() => new FileSecretsProvider(dir).set('a', 'b')).toThrow(/not valid.*Restore/);
    expect(fs.readFileSync(path.join(dir, SECRETS_FILE_NAME), 'utf8')).toBe('{ half');
  });

  it('loses no write when several processes change it at once', async () => {
    const script = `
      import { FileSecretsProvider } from ${JSON.stringify(FILE_PROVIDER)};
      const p = new FileSecretsProvider(process.argv[1]);
      for (let i = 0; i < 20; i++) p.set('p' + process.argv[2] + '-' + i, String(i));
    `;
    const runs = [0, 1, 2, 3].map(
      (n) =>
        new Promise<number | null>((resolve) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script, dir, String(n)], {
            stdio: 'ignore',
          });
          child.on('close', resolve);
        }),
    );
    expect(await Promise.all(runs)).toEqual([0, 0, 0, 0]);
    const p = new FileSecretsProvider(dir);
    for (let n = 0; n < 4; n++) for (let i = 0; i < 20; i++) expect(p.get(`p${n}-${i}`)).toBe(String(i));
  });
});

describe('choosing the provider', () => {
  const noKeychain = () => ({ ok: false, reason: 'no session bus' }) as const;
  const keychainAnswers = () => ({ ok: true }) as const;

  it('is done once and recorded: a later start where a keychain answers keeps the file', () => {
    expect(openSecretsProvider(dir, { env: {}, probe: noKeychain }).kind).toBe('file');
    const record = path.join(dir, SECRETS_RECORD_FILE_NAME);
    expect(JSON.parse(fs.readFileSync(record, 'utf8'))).toMatchObject({ kind: 'file' });
    expect(fs.statSync(record).mode & 0o777).toBe(0o600);
    expect(openSecretsProvider(dir, { env: {}, probe: keychainAnswers }).kind).toBe('file');
  });

  it('SHEETPORT_SECRETS=file skips the keychain; a forced kind that contradicts the record is refused', () => {
    expect(
      openSecretsProvider(dir, { env: { SHEETPORT_SECRETS: 'file' }, probe: keychainAnswers }).kind,
    ).toBe('file');
    const err = caught(() => openSecretsProvider(dir, { env: { SHEETPORT_SECRETS: 'keychain' } }));
    expect(err.message).toMatch(
      /SHEETPORT_SECRETS=keychain, but the secrets of .* are kept in the secrets file/,
    );
    expect(err.message).toMatch(/Unset SHEETPORT_SECRETS/);
  });

  it('SHEETPORT_SECRETS=keychain fails where none answers instead of falling back', () => {
    const err = caught(() =>
      openSecretsProvider(dir, { env: { SHEETPORT_SECRETS: 'keychain' }, probe: noKeychain }),
    );
    expect(err.message).toMatch(/no OS keychain answers: no session bus/);
    expect(fs.existsSync(path.join(dir, SECRETS_RECORD_FILE_NAME))).toBe(false);
  });
});

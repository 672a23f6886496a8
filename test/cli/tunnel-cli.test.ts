/**
 * `sheetport tunnel token`: the authtoken goes from standard input into the data dir's secrets provider (the
 * 0600 secrets file here: vitest sets SHEETPORT_SECRETS=file), is never printed, and `--remove` deletes it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSecretsProvider } from '../../server/secrets/choose.ts';
import { SECRET_NAMES } from '../../server/secrets/provider.ts';
import { runCliSync } from '../helpers/cli.ts';

const AUTHTOKEN = '2fakeAuthtoken_0123456789abcdef';

let dir: string;
let dataDir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-tunnel-cli-'));
  dataDir = path.join(dir, 'data');
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], input = '') {
  return runCliSync(args, { dataDir, input, env: { SHEETPORT_SECRETS: 'file' } });
}

/** Every file under the data dir that holds `text`, by name. */
function filesHolding(text: string): string[] {
  return fs
    .readdirSync(dataDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && fs.readFileSync(path.join(e.parentPath, e.name), 'utf8').includes(text))
    .map((e) => e.name);
}

describe('sheetport tunnel token', () => {
  it('stores the authtoken read from standard input in the secrets provider, without printing it', () => {
    const stored = run(['tunnel', 'token'], `${AUTHTOKEN}\n`);
    expect(stored.code).toBe(0);
    expect(stored.stdout).toMatch(
      /^Tunnel authtoken stored in .*secrets\.json\. Open the tunnel with: sheetport serve --tunnel\n$/,
    );
    expect(`${stored.stdout}${stored.stderr}`).not.toContain(AUTHTOKEN);
    expect(openSecretsProvider(dataDir).get(SECRET_NAMES.tunnelAuthtoken)).toBe(AUTHTOKEN);
    // Only the secrets file holds it (never the database, a log or another file of the data dir).
    expect(filesHolding(AUTHTOKEN)).toEqual(['secrets.json']);
    expect(fs.statSync(path.join(dataDir, 'secrets.json')).mode & 0o777).toBe(0o600);

    const json = run(['tunnel', 'token', '--json'], 'second_token_abcdef');
    expect(JSON.parse(json.stdout)).toEqual({ stored: true, secrets: 'file' });
    expect(openSecretsProvider(dataDir).get(SECRET_NAMES.tunnelAuthtoken)).toBe('second_token_abcdef');

    const removed = run(['tunnel', 'token', '--remove', '--json']);
    expect(JSON.parse(removed.stdout)).toEqual({ removed: true, secrets: 'file' });
    expect(openSecretsProvider(dataDir).get(SECRET_NAMES.tunnelAuthtoken)).toBeNull();
    expect(run(['tunnel', 'token', '--remove']).stdout).toBe('No tunnel authtoken was stored.\n');
  });

  it('refuses empty input and what is not one word, storing nothing', () => {
    for (const input of ['  \n', 'two words here']) {
      const r = run(['tunnel', 'token', '--json'], input);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(JSON.parse(r.stderr).error.code).toBe('usage');
    }
    expect(openSecretsProvider(dataDir).get(SECRET_NAMES.tunnelAuthtoken)).toBeNull();
  });

  it('serve lists --tunnel, off by default', () => {
    const help = run(['serve', '--help']);
    expect(help.stdout).toMatch(/--tunnel\s+also serve \/api and \/v1 \(only\) at a public ngrok URL/);
  });
});

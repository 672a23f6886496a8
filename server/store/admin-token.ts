import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const FILE = 'admin-token';

/**
 * The local admin token guards `/admin` (the dashboard's API). It lives in the data dir, readable only by the
 * user (0600): whoever can read it could edit the data dir anyway. Created once, on first start.
 */
export function loadOrCreateAdminToken(dataDir: string): string {
  const file = path.join(dataDir, FILE);
  try {
    const token = readFileSync(file, 'utf8').trim();
    if (token.length >= 32) return token;
  } catch {
    // missing: created below
  }
  const token = `spa_${randomBytes(32).toString('base64url')}`;
  try {
    writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  } catch {
    // Another process created it first: use theirs.
    return readFileSync(file, 'utf8').trim();
  }
  chmodSync(file, 0o600);
  return token;
}

import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { AdminTokens } from '../repositories/admin-token.ts';
import { newAdminToken } from '../repositories/rules/admin-token.ts';
import { secretsOf } from '../secrets/db-binding.ts';
import { SECRET_NAMES } from '../secrets/provider.ts';

/** Where SheetPort before the secrets provider kept the token; moved into the provider on the first open. */
export const LEGACY_ADMIN_TOKEN_FILE = 'admin-token';

/**
 * The local admin token guards `/admin` (the dashboard's API). It lives in the data dir's secrets provider (the
 * OS keychain or the 0600 secrets file). Created once, on first start, under SQLite's write lock so a server
 * and a CLI starting together agree on one token.
 */
export function loadOrCreateAdminToken(db: Database.Database, dataDir: string): string {
  const { provider } = secretsOf(db);
  const legacyFile = path.join(dataDir, LEGACY_ADMIN_TOKEN_FILE);
  const existing = provider.get(SECRET_NAMES.adminToken);
  if (existing) {
    rmSync(legacyFile, { force: true }); // left by a move interrupted after the token was stored
    return existing;
  }
  const create = db.transaction(() => {
    const again = provider.get(SECRET_NAMES.adminToken);
    if (again) return again;
    // Keep the token an older version created: scripts and bookmarks use it.
    const token = readLegacyToken(legacyFile) ?? newAdminToken();
    provider.set(SECRET_NAMES.adminToken, token);
    return token;
  });
  const token = create.immediate();
  rmSync(legacyFile, { force: true });
  return token;
}

/**
 * A new admin token in place of the old one, which stops working for anyone who reads the provider from now on.
 * A running server holds its token in memory, so a rotation goes through it (AdminAccess.rotate) while it runs.
 */
export function rotateAdminToken(db: Database.Database): string {
  const { provider } = secretsOf(db);
  const rotate = db.transaction(() => {
    const token = newAdminToken();
    provider.set(SECRET_NAMES.adminToken, token);
    return token;
  });
  return rotate.immediate();
}

function readLegacyToken(file: string): string | null {
  try {
    const token = readFileSync(file, 'utf8').trim();
    return token.length >= 32 ? token : null;
  } catch {
    return null;
  }
}

/** The AdminTokens of a data dir (repositories/admin-token.ts), over its database's write lock. */
export class AdminTokenStore implements AdminTokens {
  readonly #db: Database.Database;
  readonly #dataDir: string;

  constructor(db: Database.Database, dataDir: string) {
    this.#db = db;
    this.#dataDir = dataDir;
  }

  loadOrCreate(): string {
    return loadOrCreateAdminToken(this.#db, this.#dataDir);
  }

  rotate(): string {
    return rotateAdminToken(this.#db);
  }
}

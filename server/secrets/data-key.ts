/**
 * The data key: 32 random bytes, created on first open and kept in the secrets provider (never in SQLite).
 * Get-or-create runs under SQLite's write lock (BEGIN IMMEDIATE), so two processes opening a fresh data dir at
 * once agree on one key instead of each sealing with its own.
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';
import { DATA_KEY_BYTES, SecretBox } from './at-rest.ts';
import { SECRET_NAMES, type SecretsProvider } from './provider.ts';

/** What the data key needs of the database it seals for (store/db.ts provides it). */
export interface SealedDatabase {
  /** Runs `fn` holding the database's write lock, so two processes do not both create a key. */
  underWriteLock<T>(fn: () => T): T;
  /** Whether the database already holds values sealed with some key. */
  hasSealedValues(): boolean;
}

export function loadOrCreateDataKey(db: SealedDatabase, provider: SecretsProvider): SecretBox {
  const stored = provider.get(SECRET_NAMES.dataKey); // the common case, without taking the write lock
  if (stored) return boxFrom(stored, provider);
  return db.underWriteLock(() => {
    const again = provider.get(SECRET_NAMES.dataKey);
    if (again) return boxFrom(again, provider);
    if (db.hasSealedValues()) {
      // A new key would leave every sealed value unreadable and hide the real problem.
      throw new AppError(
        'internal_error',
        `The data key is missing from ${provider.where}, but the database holds values encrypted with it. ` +
          'Restore the secrets (the keychain entry or the secrets file) from a backup.',
      );
    }
    const key = randomBytes(DATA_KEY_BYTES);
    provider.set(SECRET_NAMES.dataKey, key.toString('base64'));
    return new SecretBox(key);
  });
}

function boxFrom(encoded: string, provider: SecretsProvider): SecretBox {
  const key = Buffer.from(encoded, 'base64');
  if (key.length !== DATA_KEY_BYTES) {
    throw new AppError(
      'internal_error',
      `The data key in ${provider.where} is damaged (not ${DATA_KEY_BYTES} bytes).`,
    );
  }
  return new SecretBox(key);
}

/**
 * Team mode's secrets key: webhook secrets, stored idempotent answers and account tokens are sealed in the shared
 * database with a key every instance is given (SHEETPORT_SECRET_KEY or SHEETPORT_SECRET_KEY_FILE), since a server
 * has no OS keychain. Any text works: 32 bytes are derived from it with HKDF-SHA256, so a passphrase and
 * `openssl rand -base64 32` are equally accepted; every instance must be given the same.
 */
import { hkdfSync } from 'node:crypto';
import { AppError } from '../errors.ts';
import { DATA_KEY_BYTES, SecretBox } from '../secrets/at-rest.ts';

/** Shorter than this is refused: the key protects every secret of the team. */
export const MIN_SECRET_KEY_LENGTH = 16;

export function secretBoxFromKey(secretKey: string | undefined): SecretBox {
  if (!secretKey) {
    throw new AppError(
      'internal_error',
      'Team mode needs a secrets key: set SHEETPORT_SECRET_KEY (or SHEETPORT_SECRET_KEY_FILE) to the same value ' +
        'on every instance, for example the output of `openssl rand -base64 32`.',
    );
  }
  if (secretKey.length < MIN_SECRET_KEY_LENGTH) {
    throw new AppError(
      'internal_error',
      `SHEETPORT_SECRET_KEY is too short (${secretKey.length} characters): use at least ${MIN_SECRET_KEY_LENGTH}, ` +
        'for example the output of `openssl rand -base64 32`.',
    );
  }
  const key = Buffer.from(hkdfSync('sha256', secretKey, 'sheetport-team', 'secret-box', DATA_KEY_BYTES));
  return new SecretBox(key);
}

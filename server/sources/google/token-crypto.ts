/**
 * Google tokens sealed with a passphrase, for data dirs whose secrets live in the 0600 file (no OS keychain):
 * the file alone then does not give the tokens away. The key is derived with scrypt (node:crypto) from the
 * passphrase and a random salt; the tokens are AES-256-GCM under it. A sealed value is text:
 * `spg1:` + base64url(16-byte salt | 12-byte IV | 16-byte tag | ciphertext).
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';

const PREFIX = 'spg1:';
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
// N = 2^15 costs about 0.1 s and 32 MB per derivation: slow for guessing, still quick for a login or a refresh.
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
// Bound to what it holds: a sealed value of another kind does not open as tokens.
const CONTEXT = Buffer.from('sheetport google tokens', 'utf8');

export const isSealedTokens = (stored: string): boolean => stored.startsWith(PREFIX);

const keyFor = (passphrase: string, salt: Buffer): Buffer => scryptSync(passphrase, salt, 32, SCRYPT);

export function sealTokens(plaintext: string, passphrase: string): string {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyFor(passphrase, salt), iv);
  cipher.setAAD(CONTEXT);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([salt, iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The plaintext, or null when the passphrase is wrong (or the value damaged). */
export function openTokens(stored: string, passphrase: string): string | null {
  const raw = Buffer.from(stored.slice(PREFIX.length), 'base64url');
  const salt = raw.subarray(0, SALT_BYTES);
  const iv = raw.subarray(SALT_BYTES, SALT_BYTES + IV_BYTES);
  const tag = raw.subarray(SALT_BYTES + IV_BYTES, SALT_BYTES + IV_BYTES + TAG_BYTES);
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(passphrase, salt), iv);
    decipher.setAAD(CONTEXT);
    decipher.setAuthTag(tag);
    const body = raw.subarray(SALT_BYTES + IV_BYTES + TAG_BYTES);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/**
 * Encryption at rest for the few secret values SheetPort keeps in SQLite (webhook signing secrets, stored
 * idempotent answers): AES-256-GCM under the data key held by the secrets provider. A sealed value is text,
 * `sp1:` + base64url(12-byte IV | 16-byte tag | ciphertext), so it fits the existing TEXT columns.
 *
 * Each value is bound to where it belongs (`context`, e.g. the webhook id) as GCM associated data: a sealed
 * value copied into another row does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';

const PREFIX = 'sp1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const DATA_KEY_BYTES = 32;

export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== DATA_KEY_BYTES) throw new Error(`the data key must be ${DATA_KEY_BYTES} bytes`);
    this.#key = Buffer.from(key);
  }

  static isSealed(value: string): boolean {
    return value.startsWith(PREFIX);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /**
   * The plaintext of a sealed value. A value without the prefix is plaintext written by an older SheetPort that
   * was still running during the upgrade: it is returned as is, and the next open seals it.
   */
  open(stored: string, context: string): string {
    if (!SecretBox.isSealed(stored)) return stored;
    const raw = Buffer.from(stored.slice(PREFIX.length), 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new AppError(
        'internal_error',
        'A stored secret cannot be decrypted: the data key in the secrets provider does not match this database.',
      );
    }
  }
}

/** Associated data of each kind of sealed value. */
export const sealContext = {
  webhookSecret: (webhookId: string) => `webhooks.secret:${webhookId}`,
  idempotentAnswer: (apiKeyId: string, idemKey: string) => `idempotency_keys.body:${apiKeyId}:${idemKey}`,
};

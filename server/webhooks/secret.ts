import { randomBytes } from 'node:crypto';

/**
 * Webhook secrets use the Standard Webhooks format: `whsec_` + base64 of 32 random bytes (the spec allows
 * 24-64). The whole string is the key of `X-Service-Signature`; the decoded bytes after the prefix are the key
 * of `webhook-signature` (see signer.ts).
 */
export const SECRET_PREFIX = 'whsec_';

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The key bytes of the Standard Webhooks scheme: base64-decoded text after `whsec_` (prefix optional). */
export function standardWebhookKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('webhook secret has no key bytes');
  return key;
}

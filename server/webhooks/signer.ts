/**
 * Signing of webhook deliveries (docs/api.md, "Verifying signatures"). Pure functions apart from reading our version once.
 *
 * Two signatures go out with every attempt:
 * - `X-Service-Signature`: lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the secret's UTF-8
 *   bytes (the whole `whsec_...` string), as the seed describes.
 * - `webhook-signature`: the Standard Webhooks `v1,<base64>` HMAC-SHA256 over `{id}.{timestamp}.{body}`, keyed
 *   with the base64-decoded bytes after `whsec_`, so receivers using a Standard Webhooks library get replay
 *   protection from the signed timestamp.
 */
import { createHmac } from 'node:crypto';
import { packageVersion } from '../lib/package-file.ts';
import { standardWebhookKey } from './secret.ts';

export function signHex(secret: string, body: Buffer | string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(bodyBytes(body)).digest('hex');
}

export function standardWebhookSignature(
  secret: string,
  msgId: string,
  timestampSeconds: number,
  body: Buffer | string,
): string {
  assertMessageId(msgId);
  assertTimestamp(timestampSeconds);
  const mac = createHmac('sha256', standardWebhookKey(secret))
    .update(`${msgId}.${timestampSeconds}.`, 'utf8')
    .update(bodyBytes(body))
    .digest('base64');
  return `v1,${mac}`;
}

export interface SignedHeadersInput {
  secret: string;
  /** Kept across retries and replays of one delivery: it is both `X-Service-Delivery` and `webhook-id`. */
  deliveryId: string;
  event: string;
  /** Unix seconds of this attempt (a new timestamp, and so a new `webhook-signature`, per attempt). */
  timestampSeconds: number;
  /** The exact bytes that will be sent. */
  body: Buffer | string;
}

export function signedHeaders(input: SignedHeadersInput): Record<string, string> {
  const { secret, deliveryId, event, timestampSeconds, body } = input;
  return {
    'Content-Type': 'application/json',
    'User-Agent': userAgent(),
    'X-Service-Event': event,
    'X-Service-Delivery': deliveryId,
    'X-Service-Signature': signHex(secret, body),
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standardWebhookSignature(secret, deliveryId, timestampSeconds, body),
  };
}

let cachedUserAgent: string | undefined;

/** `SheetPort-Webhooks/<version>`, the version read from our package.json (source checkout or dist build). */
export function userAgent(): string {
  cachedUserAgent ??= `SheetPort-Webhooks/${packageVersion()}`;
  return cachedUserAgent;
}

function bodyBytes(body: Buffer | string): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

/** Standard Webhooks: the id is part of the signed content and must not contain the `.` separator. */
function assertMessageId(msgId: string): void {
  if (msgId.length === 0 || /[.\s]/.test(msgId)) {
    throw new Error(
      `webhook message id must be non-empty without '.' or whitespace: ${JSON.stringify(msgId)}`,
    );
  }
}

function assertTimestamp(seconds: number): void {
  if (!Number.isSafeInteger(seconds) || seconds < 0) {
    throw new Error(`webhook timestamp must be whole Unix seconds: ${seconds}`);
  }
}

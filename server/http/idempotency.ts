import { createHash } from 'node:crypto';
import { AppError } from '../errors.ts';
import { holdsSecret } from '../lib/redact-secrets.ts';
import type { Idempotency } from '../repositories/idempotency.ts';
import type { ApiKeyRecord } from '../repositories/keys.ts';
import type { RouteRequest, RouteResponse } from './route-table.ts';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/**
 * The Idempotency-Key as the store keeps it: as sent, unless it is shaped like a secret (a key pasted into the
 * wrong header), which is kept as its digest so it is never written to the data dir. Other keys stay as they
 * are, so records made before this rule still match their repeats.
 */
function storedForm(idemKey: string): string {
  return holdsSecret(idemKey) ? `sha256:${createHash('sha256').update(idemKey).digest('hex')}` : idemKey;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * What a repeat must match: the method, the URL and the body, by the digest of its bytes (body.ts takes it as it
 * checks them). The parsed body is never serialized again: for a 5 MB body that cost more than the rest of a
 * refused request.
 */
function fingerprintOf(req: RouteRequest, bodyDigest: string | undefined): string {
  return sha256(`${req.method}\n${req.originalUrl}\n${bodyDigest ?? JSON.stringify(req.body ?? null)}`);
}

/** The fingerprint of a record begun before bodies were fingerprinted by their bytes (kept 24 h at most). */
function parsedBodyFingerprint(req: RouteRequest): string {
  return sha256(`${req.method}\n${req.originalUrl}\n${JSON.stringify(req.body ?? null)}`);
}

/** What the request says of itself, as the route pipeline found it: the key and the digest of the body's bytes. */
export interface IdempotentRequest {
  key: ApiKeyRecord | null;
  bodyDigest: string | undefined;
}

/** begin(), with a record of the earlier fingerprint's form still matched by a repeat that carries a body. */
async function beginFor(
  store: Idempotency,
  req: RouteRequest,
  bodyDigest: string | undefined,
  apiKeyId: string,
  idemKey: string,
) {
  const begun = await store.begin(apiKeyId, idemKey, fingerprintOf(req, bodyDigest));
  if (begun.state !== 'conflict' || bodyDigest === undefined) return begun;
  const earlier = await store.begin(apiKeyId, idemKey, parsedBodyFingerprint(req));
  return earlier.state === 'conflict' ? begun : earlier;
}

/**
 * `Idempotency-Key` on writes: the first successful answer is stored and replayed for a repeat of the same
 * request within 24 h, without writing again. Only successes are stored (as Stripe does): an error means
 * nothing was written, and several are passing states (423 while Excel holds the file, 412 after a change),
 * so a retry with the same key runs again rather than replaying a stale failure. The step resolves true when it
 * has answered the request itself (a repeat replayed): the route's handler must not run then.
 */
export function idempotency(store: Idempotency) {
  return async (
    req: RouteRequest,
    res: RouteResponse,
    { key, bodyDigest }: IdempotentRequest,
  ): Promise<boolean> => {
    const rawIdemKey = req.get('idempotency-key');
    if (rawIdemKey === undefined || !WRITES.has(req.method)) return false;
    if (!KEY_SHAPE.test(rawIdemKey)) {
      throw new AppError('invalid_parameter', 'Idempotency-Key must be 1-255 visible ASCII characters.', {
        parameter: 'Idempotency-Key',
      });
    }
    if (key === null) throw new AppError('unauthorized', 'Missing API key.');
    const apiKeyId = key.id;
    const idemKey = storedForm(rawIdemKey);
    const begun = await beginFor(store, req, bodyDigest, apiKeyId, idemKey);
    if (begun.state === 'replay') {
      res.setHeader('Idempotent-Replayed', 'true');
      res.status(begun.status).setHeader('Content-Type', begun.contentType);
      res.send(begun.body);
      return true;
    }
    if (begun.state === 'conflict') {
      throw new AppError(
        'idempotency_conflict',
        'This Idempotency-Key was already used with a different request.',
      );
    }
    if (begun.state === 'in_progress') {
      throw new AppError('conflict', 'A request with this Idempotency-Key is still being processed.');
    }

    let captured: string | null = null;
    const originalSend = res.send.bind(res);
    res.send = (body?: unknown) => {
      if (typeof body === 'string') captured = body;
      else if (Buffer.isBuffer(body)) captured = body.toString('utf8');
      return originalSend(body);
    };
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      const stored =
        captured !== null && res.statusCode >= 200 && res.statusCode < 300 && res.writableFinished
          ? store.complete(
              apiKeyId,
              idemKey,
              res.statusCode,
              String(res.getHeader('Content-Type') ?? 'application/json; charset=utf-8'),
              captured,
            )
          : store.abandon(apiKeyId, idemKey);
      // The answer is sent already; a record left pending (a full disk) is taken over after its pending TTL.
      stored.catch(() => {});
    };
    res.on('finish', settle);
    res.on('close', settle);
    return false;
  };
}

/**
 * One webhook delivery attempt: POST the signed body to the receiver and report what happened. Retries,
 * scheduling and the delivery log are the outbox/worker's business; this never throws.
 *
 * - node:http/https rather than fetch: the `lookup` hook lets the target policy check the address actually
 *   connected to (not only the one seen at registration), and nothing here follows redirects.
 * - Success is a 2xx status AND the response read (to its end, or to the excerpt cap) within ONE total
 *   time-out covering connect, TLS, headers and body: a receiver that sends headers and then hangs fails.
 * - A fresh connection per attempt (`agent: false`), so a dead keep-alive socket never fails a delivery.
 * - At most EXCERPT_BYTES of the response are kept; once that much has arrived the response is destroyed.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { isAppError } from '../errors.ts';
import { http } from '../lib/node-http.ts';
import {
  ADDRESS_NOT_ALLOWED,
  classifyAddress,
  isAddressAllowed,
  literalIp,
  policyFor,
  safeLookup,
  type TargetPolicy,
  validateWebhookUrl,
} from './target-safety.ts';

export const DEFAULT_TIMEOUT_MS = 5000;
export const EXCERPT_BYTES = 4096;

export interface AttemptResult {
  /** True only for a 2xx received and read within the time-out. */
  ok: boolean;
  /** The HTTP status received, or null when none was (connect error, time-out before headers...). */
  status: number | null;
  durationMs: number;
  /** Null on success; otherwise short: `timeout`, `ECONNRESET`, `HTTP 500`, `address not allowed: 10.0.0.1`... */
  error: string | null;
  /** The first EXCERPT_BYTES bytes of the response body as UTF-8 (cut at a character boundary). */
  responseExcerpt: string;
  /**
   * The IP address this attempt connected to, or tried to (a refused connection, one the target policy
   * refused); null when no address was resolved. What the delivery log may show depends on its class.
   */
  address: string | null;
}

export interface DeliverOptions {
  url: string | URL;
  /** The exact bytes that were signed. */
  body: Buffer;
  /** Usually `signedHeaders(...)`; Content-Length is set here. */
  headers: Record<string, string>;
  /** Total budget for the attempt, connect to last byte read. */
  timeoutMs?: number;
  /** Whether private (LAN) addresses are allowed targets (a user setting). */
  allowLan: boolean;
  /**
   * The resolver to use, dns.lookup-shaped (default `dns.lookup`). It is always wrapped by `safeLookup`, so the
   * target policy applies to whatever it returns.
   */
  lookup?: LookupFunction;
}

export function deliver(opts: DeliverOptions): Promise<AttemptResult> {
  const started = performance.now();
  return new Promise<AttemptResult>((resolve) => {
    const attempt = new Attempt(started, resolve);
    try {
      const target = checkTarget(opts);
      attempt.address = target.address;
      if ('refused' in target) attempt.finish(false, target.refused);
      else attempt.send(target.url, target.policy, opts);
    } catch (err) {
      attempt.finish(false, describeError(err));
    }
  });
}

/** Where an attempt may go, or why it may not: checked before anything is sent. */
type CheckedTarget =
  | { url: URL; policy: TargetPolicy; address: string | null }
  | { refused: string; address: string | null };

function checkTarget(opts: DeliverOptions): CheckedTarget {
  const target = typeof opts.url === 'string' ? opts.url : opts.url.href;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { refused: 'invalid url', address: null };
  }
  const policy = policyFor(url, opts.allowLan);
  // Node's net skips `lookup` for IP literals, so those are checked here.
  const ip = literalIp(url.hostname);
  if (ip !== null && !isAddressAllowed(ip, policy))
    return { refused: `address not allowed: ${ip}`, address: ip };
  try {
    // Same rules as registration, re-applied: settings (allowLan) may have changed since.
    validateWebhookUrl(target, { allowLan: opts.allowLan });
  } catch (err) {
    return { refused: isAppError(err) ? `url refused: ${err.message}` : 'invalid url', address: ip };
  }
  return { url, policy, address: ip };
}

/** One attempt under way: what it has learnt so far, settled once by `finish`. */
class Attempt {
  /** The best knowledge of where the attempt went: resolved, then tried, then connected (the last word). */
  address: string | null = null;
  readonly #started: number;
  readonly #resolve: (result: AttemptResult) => void;
  #settled = false;
  #status: number | null = null;
  readonly #kept: Buffer[] = [];
  #keptBytes = 0;
  #req: ClientRequest | undefined;
  #res: IncomingMessage | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(started: number, resolve: (result: AttemptResult) => void) {
    this.#started = started;
    this.#resolve = resolve;
  }

  finish(ok: boolean, error: string | null): void {
    if (this.#settled) return;
    this.#settled = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#res?.destroy();
    this.#req?.destroy();
    const excerpt = Buffer.concat(this.#kept, this.#keptBytes);
    this.#resolve({
      ok,
      status: this.#status,
      durationMs: Math.round(performance.now() - this.#started),
      error,
      responseExcerpt: this.#keptBytes >= EXCERPT_BYTES ? utf8Prefix(excerpt) : excerpt.toString('utf8'),
      address: this.address,
    });
  }

  /** POST the body, under one time-out from here to the last byte read. */
  send(url: URL, policy: TargetPolicy, opts: DeliverOptions): void {
    this.#timer = setTimeout(() => this.finish(false, 'timeout'), opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      headers: { ...opts.headers, 'Content-Length': String(opts.body.length) },
      agent: false,
      lookup: noteAddress(safeLookup({ ...policy, ...(opts.lookup ? { lookup: opts.lookup } : {}) }), (a) => {
        this.address = a;
      }),
    });
    this.#req = request;
    request.on('error', (err) => {
      this.address = keepLocal(this.address, addressOf(err));
      this.finish(false, describeError(err));
    });
    request.on('socket', (socket: Socket) => this.#checkPeer(socket, policy));
    request.on('response', (response) => this.#read(response));
    request.end(opts.body);
  }

  /** Defence in depth: whatever path led here, the peer must be an allowed address. */
  #checkPeer(socket: Socket, policy: TargetPolicy): void {
    socket.once('connect', () => {
      const peer = socket.remoteAddress;
      if (peer !== undefined) this.address = peer;
      if (peer !== undefined && !isAddressAllowed(peer, policy)) {
        this.finish(false, `address not allowed: ${peer}`);
      }
    });
  }

  #read(response: IncomingMessage): void {
    this.#res = response;
    this.#status = response.statusCode ?? null;
    const complete = (): void => this.finish(isSuccess(this.#status), statusError(this.#status));
    response.on('data', (chunk: Buffer) => {
      this.#keep(chunk);
      // We keep no more than this, so there is nothing more to wait for: the status is known.
      if (this.#keptBytes >= EXCERPT_BYTES) complete();
    });
    response.on('end', complete);
    response.on('error', (err) => this.finish(false, describeError(err)));
    response.on('close', () => {
      if (!response.complete) this.finish(false, 'ECONNRESET');
    });
  }

  #keep(chunk: Buffer): void {
    const room = EXCERPT_BYTES - this.#keptBytes;
    if (room <= 0) return;
    const part = chunk.subarray(0, room);
    this.#kept.push(part);
    this.#keptBytes += part.length;
  }
}

function isSuccess(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

function statusError(status: number | null): string | null {
  if (isSuccess(status)) return null;
  if (status !== null && status >= 300 && status < 400) return `HTTP ${status} (redirects are not followed)`;
  return `HTTP ${status ?? 'unknown'}`;
}

/**
 * Wrap a lookup so the address an attempt goes to is known even when the connection then fails: the one the
 * target policy refused, else the first non-public one offered (a connection may fall back to it), else the
 * first. A non-public address among them makes the attempt count as local unless a public peer answers.
 */
function noteAddress(lookup: LookupFunction, note: (address: string) => void): LookupFunction {
  return (hostname, options, callback) =>
    lookup(hostname, options, (err, result, family) => {
      const offered = typeof result === 'string' ? [result] : (result ?? []).map((a) => a.address);
      const seen = err ? addressOf(err) : (offered.find((a) => !isPublic(a)) ?? offered[0]);
      if (seen) note(seen);
      callback(err, result as string, family);
    });
}

/** Of what is known and what an error names, the one to keep: a non-public address is never traded away. */
function keepLocal(known: string | null, named: string | null): string | null {
  if (known !== null && !isPublic(known)) return known;
  return named ?? known;
}

function isPublic(address: string): boolean {
  return classifyAddress(address) === 'public';
}

/** The address a connect error names (Node sets it on ECONNREFUSED and the like; happy eyeballs nests them). */
function addressOf(err: unknown): string | null {
  if (err instanceof AggregateError) return addressOf(err.errors[0]);
  const address = (err as { address?: unknown } | null)?.address;
  return typeof address === 'string' && address !== '' ? address : null;
}

/** A short, stable error string: our policy message, else the system/TLS error code, else a clipped message. */
export function describeError(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === ADDRESS_NOT_ALLOWED && typeof e.message === 'string') return e.message;
    if (typeof e.code === 'string' && e.code !== '') return e.code;
    // Happy-eyeballs connects report every address's failure in an AggregateError.
    if (err instanceof AggregateError && err.errors.length > 0) return describeError(err.errors[0]);
    if (typeof e.message === 'string' && e.message !== '') return e.message.slice(0, 200);
  }
  return String(err).slice(0, 200);
}

/** Decode as UTF-8 without a dangling half character where the cap cut a multi-byte sequence. */
function utf8Prefix(buf: Buffer): string {
  let i = buf.length - 1;
  let continuation = 0;
  while (i >= 0 && continuation < 3 && ((buf[i] ?? 0) & 0xc0) === 0x80) {
    i--;
    continuation++;
  }
  let end = buf.length;
  if (i >= 0) {
    const lead = buf[i] ?? 0;
    const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (length > continuation + 1) end = i;
  }
  return buf.subarray(0, end).toString('utf8');
}

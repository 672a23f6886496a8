/**
 * Who may call `/admin`, held in the server's memory: the long-lived admin token (from the secrets provider),
 * the one-use sign-in codes that open the dashboard, and the dashboard's sessions.
 *
 * The admin token never travels in a URL. `sheetport dashboard` and the tray app ask for a sign-in code (random,
 * good once, for SIGN_IN_CODE_TTL_MS) and open `/ui/#code=...`; the page trades the code for a session
 * (`POST /admin/session`, in a body) and keeps the session in sessionStorage. A session lasts until it signs
 * out, the admin token is rotated or the server stops: codes and sessions are never written anywhere, so a
 * restart forgets them. Codes and sessions are kept by their SHA-256, so a lookup compares no secret directly.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGN_IN_CODE_TTL_MS = 60_000;
/** More open dashboards than anyone has; past it the oldest session ends. */
const MAX_SESSIONS = 64;

const digest = (secret: string) => createHash('sha256').update(secret).digest('base64url');

export interface AdminAccessOptions {
  token: string;
  /** Epoch-ms clock (injected in tests). */
  now: () => number;
  /** Stores a new admin token in the secrets provider and answers it. */
  rotate: () => string;
}

export class AdminAccess {
  #token: string;
  readonly #now: () => number;
  readonly #rotate: () => string;
  /** digest of a code -> when it expires */
  readonly #codes = new Map<string, number>();
  /** digests of live sessions, oldest first */
  readonly #sessions = new Set<string>();
  readonly #onRotate: (() => void)[] = [];

  constructor(options: AdminAccessOptions) {
    this.#token = options.token;
    this.#now = options.now;
    this.#rotate = options.rotate;
  }

  /** The current admin token (what `sheetport admin-token` prints). */
  get token(): string {
    return this.#token;
  }

  /** True for the admin token itself. */
  isAdminToken(given: string): boolean {
    const a = Buffer.from(given);
    const b = Buffer.from(this.#token);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** True for the admin token or a live session. */
  admits(given: string): boolean {
    if (given === '') return false;
    return this.isAdminToken(given) || this.#sessions.has(digest(given));
  }

  issueCode(): { code: string; expiresAt: number } {
    const now = this.#now();
    for (const [hash, until] of this.#codes) if (until <= now) this.#codes.delete(hash);
    const code = `spc_${randomBytes(24).toString('base64url')}`;
    const expiresAt = now + SIGN_IN_CODE_TTL_MS;
    this.#codes.set(digest(code), expiresAt);
    return { code, expiresAt };
  }

  /** A new session for a live code, else null. The code is spent either way: it signs in at most once. */
  redeemCode(code: string): string | null {
    const hash = digest(code);
    const until = this.#codes.get(hash);
    this.#codes.delete(hash);
    if (until === undefined || until <= this.#now()) return null;
    return this.openSession();
  }

  /** A new session (for a live code, or for someone who showed the admin token itself). */
  openSession(): string {
    const session = `sps_${randomBytes(32).toString('base64url')}`;
    this.#sessions.add(digest(session));
    while (this.#sessions.size > MAX_SESSIONS) {
      const oldest = this.#sessions.values().next().value;
      if (oldest === undefined) break;
      this.#sessions.delete(oldest);
    }
    return session;
  }

  /** Ends a session (sign-out); anything else is ignored. */
  endSession(session: string): void {
    this.#sessions.delete(digest(session));
  }

  /**
   * A new admin token, stored first: the old one, every session and every unused code stop working at once, and
   * whoever listens (the event streams) ends what the old credentials opened.
   */
  rotate(): void {
    this.#token = this.#rotate();
    this.#codes.clear();
    this.#sessions.clear();
    for (const listener of this.#onRotate) listener();
  }

  onRotate(listener: () => void): void {
    this.#onRotate.push(listener);
  }
}

/**
 * Account logins the dashboard started (`POST /admin/accounts/{kind}/logins`). The kind's own login runs in the
 * server process: its loopback listener waits for the browser, then stores the tokens in the secrets provider,
 * as `sheetport login` does. The route answers as soon as the consent URL is known; the page polls the login
 * here until it has succeeded or failed. Held in memory: a restart forgets them, and the page starts again.
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';
import type { LoginOutcome } from '../sources/index.ts';

export type LoginState = 'pending' | 'succeeded' | 'failed';

export interface LoginJson {
  login_id: string;
  kind: string;
  state: LoginState;
  consent_url: string;
  /** Set once the login has succeeded. */
  account: string | null;
  storage: LoginOutcome['storage'] | null;
  /** Why it failed (the kind's own error: the client not configured, access not granted, no answer in time). */
  error: { code: string; message: string; reason?: string } | null;
  started_at: string;
}

/** Finished logins are kept this long for the page to read, then dropped. */
const KEEP_FINISHED_MS = 10 * 60_000;

/** Runs one login: `show` gets the consent URL; resolves when the tokens are stored; `signal` ends it early. */
export type RunLogin = (show: (url: string) => void, signal: AbortSignal) => Promise<LoginOutcome>;

export class AccountLogins {
  readonly #now: () => number;
  /** A failure's message as a client may read it (errors.ts `clientText`). */
  readonly #shown: (text: string) => string;
  readonly #logins = new Map<string, LoginJson & { finishedAt: number | null }>();
  /** Ends every login still waiting for its browser, so none keeps a loopback listener past the server's stop. */
  readonly #stop = new AbortController();

  constructor(now: () => number, shown: (text: string) => string = (text) => text) {
    this.#now = now;
    this.#shown = shown;
  }

  /**
   * Start a login of `kind`, or answer the one still pending for it (a second click must not open a second
   * listener). Resolves with the login once its consent URL is known; rejects when it fails before that (no
   * client configured, nowhere to keep the tokens), so the refusal is the answer to the POST itself.
   */
  async start(kind: string, run: RunLogin): Promise<LoginJson> {
    this.#prune();
    const pending = [...this.#logins.values()].find((l) => l.kind === kind && l.state === 'pending');
    if (pending) return this.#json(pending);
    let shown: (url: string) => void = () => {};
    const consentUrl = new Promise<string>((resolve) => {
      shown = resolve;
    });
    const outcome = run(shown, this.#stop.signal);
    const url = await Promise.race([consentUrl, outcome.then(() => null)]);
    if (url === null) throw new AppError('internal_error', 'The login ended without a consent page.');
    const login: LoginJson & { finishedAt: number | null } = {
      login_id: `login_${randomBytes(12).toString('base64url')}`,
      kind,
      state: 'pending',
      consent_url: url,
      account: null,
      storage: null,
      error: null,
      started_at: new Date(this.#now()).toISOString(),
      finishedAt: null,
    };
    this.#logins.set(login.login_id, login);
    outcome.then(
      (done) => {
        Object.assign(login, { state: 'succeeded', account: done.account, storage: done.storage });
        login.finishedAt = this.#now();
      },
      (err: unknown) => {
        const known = err instanceof AppError;
        Object.assign(login, {
          state: 'failed',
          error: {
            code: known ? err.code : 'internal_error',
            message: known ? this.#shown(err.message) : 'The login failed.',
            ...(known && typeof err.details.reason === 'string' ? { reason: err.details.reason } : {}),
          },
        });
        login.finishedAt = this.#now();
      },
    );
    return this.#json(login);
  }

  /** The server is stopping: pending logins fail and close their listeners. */
  stopAll(): void {
    this.#stop.abort();
  }

  get(kind: string, id: string): LoginJson {
    this.#prune();
    const login = this.#logins.get(id);
    if (!login || login.kind !== kind) throw new AppError('not_found', 'No login with this id.');
    return this.#json(login);
  }

  #json(login: LoginJson & { finishedAt: number | null }): LoginJson {
    const { finishedAt: _, ...json } = login;
    return json;
  }

  #prune(): void {
    const now = this.#now();
    for (const [id, login] of this.#logins) {
      if (login.finishedAt !== null && now - login.finishedAt > KEEP_FINISHED_MS) this.#logins.delete(id);
    }
  }
}

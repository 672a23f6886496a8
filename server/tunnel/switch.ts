/**
 * Opens and closes the optional public tunnel. Opening listens with the tunnel-only app (app.ts, surface
 * `tunnel`: `/api` and `/v1` only) on 127.0.0.1 at a free port, reads the authtoken from the secrets provider and
 * asks the provider for a public URL forwarding there. The main listener is never what the tunnel reaches.
 *
 * Nothing here throws at the caller: a missing authtoken, a provider that refuses or cannot be reached, a start
 * that takes too long all end in state `failed` with the reason (logged, shown by the tray and the dashboard)
 * while the local server goes on serving.
 */
import type { Server } from 'node:http';
import type { Express } from 'express';
import { closeServer, listen } from '../listen.ts';
import type { OpenTunnel, TunnelProvider, TunnelStatus } from './provider.ts';

/** `sheetport tunnel token` stores it; what a missing one's message tells the user to run. */
export const SET_TOKEN_COMMAND = 'sheetport tunnel token';

export interface TunnelSwitchOptions {
  /** The tunnel-only app; its Host guard asks `hosts` for the tunnel's public name. */
  app: Express;
  provider: TunnelProvider;
  /** Read at each open, so a token set with the CLI while the server runs is used the next time. */
  authtoken: () => string | null;
  log: (message: string, err?: unknown) => void;
  /** A provider that has not answered by then counts as failed (default 30 s). */
  startTimeoutMs?: number;
  /** Closing the provider's side gives up after this long (default 5 s), so a stop is never held by it. */
  closeTimeoutMs?: number;
}

export class TunnelSwitch {
  readonly #options: TunnelSwitchOptions;
  #status: TunnelStatus;
  #server: Server | null = null;
  #tunnel: OpenTunnel | null = null;
  #opening: Promise<TunnelStatus> | null = null;

  constructor(options: TunnelSwitchOptions) {
    this.#options = options;
    this.#status = { state: 'off', url: null, error: null, provider: options.provider.name };
  }

  status(): TunnelStatus {
    return { ...this.#status };
  }

  /** The public host name while open: the only non-loopback `Host` the tunnel-only listener accepts. */
  hosts(): readonly string[] {
    return this.#status.url === null ? [] : [new URL(this.#status.url).hostname];
  }

  /** The tunnel-only listener while the tunnel is open (tests reach it directly; a forced stop drops it). */
  get server(): Server | null {
    return this.#server;
  }

  /** Open (once; a second call while opening waits for the first). Resolves with the outcome, never rejects. */
  open(): Promise<TunnelStatus> {
    if (this.#status.state === 'open') return Promise.resolve(this.status());
    this.#opening ??= this.#open().finally(() => {
      this.#opening = null;
    });
    return this.#opening;
  }

  async #open(): Promise<TunnelStatus> {
    const { provider } = this.#options;
    this.#status = { state: 'starting', url: null, error: null, provider: provider.name };
    let token: string | null;
    try {
      token = this.#options.authtoken();
    } catch (err) {
      return this.#fail(`Cannot read the tunnel authtoken from the secrets provider: ${messageOf(err)}`);
    }
    if (!token) {
      return this.#fail(
        `No tunnel authtoken is stored; set your ${provider.name} authtoken with \`${SET_TOKEN_COMMAND}\` (it goes to the secrets provider). The server goes on serving locally.`,
      );
    }
    let server: Server;
    let port: number;
    try {
      ({ server, port } = await listen(this.#options.app, 0, '127.0.0.1'));
    } catch (err) {
      return this.#fail(`The tunnel's local listener did not start: ${messageOf(err)}`);
    }
    try {
      const tunnel = await within(
        provider.start({ localPort: port, authtoken: token }),
        this.#options.startTimeoutMs ?? 30_000,
        (late) => void late.close().catch(() => {}),
      );
      this.#server = server;
      this.#tunnel = tunnel;
      this.#status = { state: 'open', url: tunnel.url, error: null, provider: provider.name };
      return this.status();
    } catch (err) {
      await closeServer(server);
      // A provider's message could echo what it was given: the token never reaches a log or the tray.
      const reason = messageOf(err).replaceAll(token, '[authtoken]');
      return this.#fail(
        `The ${provider.name} tunnel did not open (the server goes on serving locally): ${reason}`,
      );
    }
  }

  #fail(message: string): TunnelStatus {
    this.#status = { state: 'failed', url: null, error: message, provider: this.#options.provider.name };
    this.#options.log(message);
    return this.status();
  }

  /** Close the public URL and the tunnel-only listener; back to `off`. */
  async close(): Promise<void> {
    await this.#opening;
    const tunnel = this.#tunnel;
    const server = this.#server;
    this.#tunnel = null;
    this.#server = null;
    this.#status = { state: 'off', url: null, error: null, provider: this.#options.provider.name };
    if (tunnel) {
      await within(tunnel.close(), this.#options.closeTimeoutMs ?? 5000, () => {}).catch((err) =>
        this.#options.log(`Closing the ${this.#options.provider.name} tunnel failed: ${messageOf(err)}`),
      );
    }
    if (server) await closeServer(server);
  }

  /** The last resort of a stop: drop every connection of the tunnel-only listener. */
  forceClose(): void {
    this.#server?.closeAllConnections();
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** `work`, or a rejection after `ms`; a result that arrives later goes to `late` (to close what it opened). */
function within<T>(work: Promise<T>, ms: number, late: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      reject(new Error(`no answer within ${Math.round(ms / 1000)} s`));
    }, ms);
    timer.unref();
    work.then(
      (value) => {
        if (settled) return late(value);
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/**
 * Start, pause, resume and stop of the embedded server, over an injected handle (server/index.ts's
 * RunningServer in the app, a fake in unit tests). It keeps the state the tray shows and tells a listener
 * whenever that state changes.
 */
export interface ServerHandle {
  url: string;
  port: number;
  pauseSync(): Promise<void>;
  resumeSync(): void;
  status(): { syncPaused: boolean };
  /** Opens the public tunnel (`/api` and `/v1` only); a failure is in the answer, never thrown. */
  openTunnel(): Promise<{ url: string | null; error: string | null }>;
  closeTunnel(): Promise<void>;
  /** A one-use sign-in code for the dashboard window (`/ui/#code=...`), good for a minute. */
  signInCode(): string;
  /** A new admin token: the old one, every dashboard session and every unused sign-in code stop working. */
  rotateAdminToken(): void;
  /** Stops taking requests, lets deliveries in flight finish (recorded, never lost), closes the database. */
  stop(): Promise<void>;
}

export type Phase = 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';

/** The public tunnel: off by default, opened from the tray; `failed` leaves the local server serving. */
export type TunnelPhase = 'off' | 'starting' | 'open' | 'failed';

export interface AppState {
  phase: Phase;
  url: string | null;
  port: number | null;
  syncPaused: boolean;
  tunnel: TunnelPhase;
  /** The public tunnel's URL while it is open. */
  tunnelUrl: string | null;
  /** The last error the service reported (a source it could not read, a delivery round that failed). */
  lastSyncError: string | null;
  /** Why the server did not start (a port in use, a data dir it cannot open). */
  startError: string | null;
}

export interface LifecycleOptions {
  start: () => Promise<ServerHandle>;
  onChange?: (state: AppState) => void;
  /** Quit waits this long for the drain, then gives up so the app always exits (default 5 s). */
  stopDeadlineMs?: number;
}

const INITIAL: AppState = {
  phase: 'stopped',
  url: null,
  port: null,
  syncPaused: false,
  tunnel: 'off',
  tunnelUrl: null,
  lastSyncError: null,
  startError: null,
};

export class Lifecycle {
  readonly #options: LifecycleOptions;
  #state: AppState = INITIAL;
  #server: ServerHandle | null = null;
  #starting: Promise<void> | null = null;
  #stopping: Promise<'drained' | 'deadline'> | null = null;

  constructor(options: LifecycleOptions) {
    this.#options = options;
  }

  get state(): AppState {
    return this.#state;
  }

  /** Start once; a second call waits for the first. A failure is kept in the state for the tray to show. */
  start(): Promise<void> {
    this.#starting ??= this.#start();
    return this.#starting;
  }

  async #start(): Promise<void> {
    this.#set({ phase: 'starting', startError: null });
    try {
      const server = await this.#options.start();
      this.#server = server;
      this.#set({
        phase: 'running',
        url: server.url,
        port: server.port,
        syncPaused: server.status().syncPaused,
      });
    } catch (err) {
      this.#set({ phase: 'failed', startError: err instanceof Error ? err.message : String(err) });
    }
  }

  /** Pause change detection and webhook delivery; resolves when attempts in flight have finished. */
  async pauseSync(): Promise<void> {
    const server = this.#running();
    if (!server || this.#state.syncPaused) return;
    this.#set({ syncPaused: true });
    await server.pauseSync();
  }

  resumeSync(): void {
    const server = this.#running();
    if (!server || !this.#state.syncPaused) return;
    server.resumeSync();
    this.#set({ syncPaused: false });
  }

  toggleSync(): Promise<void> {
    if (this.#state.syncPaused) {
      this.resumeSync();
      return Promise.resolve();
    }
    return this.pauseSync();
  }

  /**
   * Open the public tunnel. A missing authtoken or a provider that fails leaves the server serving locally; the
   * reason becomes the tray's last error.
   */
  async openTunnel(): Promise<void> {
    const server = this.#running();
    if (!server || this.#state.tunnel === 'starting' || this.#state.tunnel === 'open') return;
    this.#set({ tunnel: 'starting', tunnelUrl: null });
    const outcome = await server.openTunnel();
    if (this.#server !== server || this.#state.phase !== 'running') return; // stopped meanwhile
    if (outcome.url) this.#set({ tunnel: 'open', tunnelUrl: outcome.url });
    else this.#set({ tunnel: 'failed', lastSyncError: outcome.error ?? 'The tunnel did not open.' });
  }

  async closeTunnel(): Promise<void> {
    const server = this.#running();
    if (!server || this.#state.tunnel === 'off' || this.#state.tunnel === 'starting') return;
    this.#set({ tunnel: 'off', tunnelUrl: null });
    await server.closeTunnel();
  }

  toggleTunnel(): Promise<void> {
    return this.#state.tunnel === 'open' ? this.closeTunnel() : this.openTunnel();
  }

  /**
   * Replace the admin token (the tray's "Rotate admin token"). True when the running server rotated it; the
   * caller signs its dashboard window in again, since the rotation ended the window's session too.
   */
  rotateAdminToken(): boolean {
    const server = this.#running();
    if (!server) return false;
    server.rotateAdminToken();
    return true;
  }

  /** A sign-in code for the dashboard window, or null while no server runs. */
  signInCode(): string | null {
    return this.#running()?.signInCode() ?? null;
  }

  /** The service's log hook feeds this so the tray can show what last went wrong. */
  noteError(message: string, err?: unknown): void {
    const cause = err instanceof Error ? `: ${err.message}` : '';
    this.#set({ lastSyncError: `${message}${cause}` });
  }

  /**
   * Quit's drain: the server stops (deliveries in flight finish and are recorded; queued ones stay for the next
   * start). Says whether it drained or the deadline cut it short.
   */
  stop(): Promise<'drained' | 'deadline'> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<'drained' | 'deadline'> {
    await this.#starting;
    const server = this.#server;
    if (!server) {
      this.#set({ phase: 'stopped' });
      return 'drained';
    }
    this.#set({ phase: 'stopping' });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      timer = setTimeout(() => resolve('deadline'), this.#options.stopDeadlineMs ?? 5000);
    });
    const drained = server.stop().then(
      () => 'drained' as const,
      () => 'drained' as const,
    );
    const outcome = await Promise.race([drained, deadline]);
    clearTimeout(timer);
    this.#server = null;
    this.#set({ phase: 'stopped', tunnel: 'off', tunnelUrl: null });
    return outcome;
  }

  #running(): ServerHandle | null {
    return this.#state.phase === 'running' ? this.#server : null;
  }

  #set(change: Partial<AppState>): void {
    this.#state = { ...this.#state, ...change };
    this.#options.onChange?.(this.#state);
  }
}

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
  /** Stops taking requests, lets deliveries in flight finish (recorded, never lost), closes the database. */
  stop(): Promise<void>;
}

export type Phase = 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';

export interface AppState {
  phase: Phase;
  url: string | null;
  port: number | null;
  syncPaused: boolean;
  /** The public tunnel's URL when one is open (none yet: the tunnel is a later item). */
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
    this.#set({ phase: 'stopped' });
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

/**
 * One LISTEN connection per instance, shared by every store-pg/ part that wants to hear another instance's
 * NOTIFY (channels.ts). It reconnects after the database goes away, and then tells every listener once with
 * `null` (anything may have happened meanwhile: read again).
 */
import pg from 'pg';

export type Heard = (payload: string | null) => void;

export class PgListener {
  readonly #url: string;
  readonly #listeners = new Map<string, Set<Heard>>();
  #client: pg.Client | null = null;
  #closed = false;
  #retry: NodeJS.Timeout | null = null;
  #log: (message: string, err?: unknown) => void;
  /** The LISTEN statements sent so far, one after another: a pg client runs one query at a time. */
  #listening: Promise<void> = Promise.resolve();

  constructor(databaseUrl: string, log: (message: string, err?: unknown) => void = () => {}) {
    this.#url = databaseUrl;
    this.#log = log;
  }

  /** Connects and listens on every channel asked for so far; later `on` calls listen as they come. */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url, application_name: 'sheetport-listen' });
    client.on('notification', (n) => this.#tell(n.channel, n.payload ?? ''));
    client.on('error', (err) => this.#lost(client, err));
    client.on('end', () => this.#lost(client));
    await client.connect();
    this.#client = client;
    for (const channel of this.#listeners.keys()) await this.#listen(client, channel);
  }

  /** `heard` is called with each payload on `channel` (and null after a reconnect); returns the unsubscribe. */
  on(channel: string, heard: Heard): () => void {
    checkChannel(channel);
    let set = this.#listeners.get(channel);
    if (!set) {
      set = new Set();
      this.#listeners.set(channel, set);
      if (this.#client)
        this.#listen(this.#client, channel).catch((err) => this.#log(`LISTEN ${channel} failed`, err));
    }
    set.add(heard);
    return () => set.delete(heard);
  }

  /** LISTEN on `channel`, after the LISTENs sent before it have been answered. */
  #listen(client: pg.Client, channel: string): Promise<void> {
    const listened = this.#listening
      .catch(() => {})
      .then(() => client.query(`LISTEN ${channel}`))
      .then(() => {});
    this.#listening = listened;
    return listened;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => {});
  }

  #tell(channel: string, payload: string | null): void {
    for (const heard of this.#listeners.get(channel) ?? []) {
      try {
        heard(payload);
      } catch (err) {
        this.#log(`A listener of ${channel} failed`, err);
      }
    }
  }

  #lost(client: pg.Client, err?: unknown): void {
    if (this.#client !== client || this.#closed) return;
    this.#client = null;
    this.#log('The database connection that listens for other instances was lost; reconnecting', err);
    const again = () => {
      this.#retry = null;
      if (this.#closed) return;
      this.start().then(
        () => {
          for (const channel of this.#listeners.keys()) this.#tell(channel, null);
        },
        () => {
          this.#retry = setTimeout(again, 1000);
          this.#retry.unref();
        },
      );
    };
    again();
  }
}

/** Channel names go into LISTEN unquoted: keep them plain identifiers (channels.ts's are). */
function checkChannel(channel: string): void {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
}

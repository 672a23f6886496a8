/**
 * Named secrets in the team's database (`Store.secrets`: account tokens, the tunnel's authtoken), as the
 * synchronous SecretsProvider the rest of SheetPort reads. Values are sealed with the team's key. All of them are
 * read at open and kept in memory; a set or delete changes memory at once and is written behind, in order
 * (`flush()` waits for the writes and reports a failed one); every instance reads a secret again when another
 * announces it changed (NOTIFY `sheetport_secrets`), and reads them all again after its listener reconnects.
 */
import { AppError } from '../errors.ts';
import type { SecretBox } from '../secrets/at-rest.ts';
import { checkSecretName, type SecretsProvider } from '../secrets/provider.ts';
import { CHANNELS } from './channels.ts';
import type { PgListener } from './listener.ts';
import { type Pool, tx } from './pool.ts';

/** Associated data of a sealed named secret: a value copied under another name does not open. */
const sealContextOf = (name: string) => `secrets.value:${name}`;

export interface PgSecretsOptions {
  box: SecretBox;
  listener: PgListener;
  clock?: () => Date;
  log?: (message: string, err?: unknown) => void;
}

export class PgSecrets implements SecretsProvider {
  readonly kind = 'database' as const;
  readonly where = 'the team database';
  readonly #pool: Pool;
  readonly #box: SecretBox;
  readonly #listener: PgListener;
  readonly #clock: () => Date;
  readonly #log: (message: string, err?: unknown) => void;
  /** name -> value in clear. */
  #values = new Map<string, string>();
  /** Names with a write of ours not yet done: a NOTIFY must not put back the value before it. */
  readonly #writing = new Map<string, number>();
  #tail: Promise<void> = Promise.resolve();
  #failed: unknown[] = [];
  #unlisten: (() => void) | null = null;

  constructor(pool: Pool, options: PgSecretsOptions) {
    this.#pool = pool;
    this.#box = options.box;
    this.#listener = options.listener;
    this.#clock = options.clock ?? (() => new Date());
    this.#log = options.log ?? (() => {});
  }

  /** Reads every secret, then follows other instances' changes until `stop`. */
  async start(): Promise<void> {
    this.#unlisten = this.#listener.on(CHANNELS.secrets, (name) => {
      const read = name === null ? this.#readAll() : this.#readOne(name);
      read.catch((err) => this.#log('Reading the secrets changed by another instance failed', err));
    });
    await this.#readAll();
  }

  stop(): void {
    this.#unlisten?.();
    this.#unlisten = null;
  }

  get(name: string): string | null {
    checkSecretName(name);
    return this.#values.get(name) ?? null;
  }

  set(name: string, value: string): void {
    checkSecretName(name);
    this.#values.set(name, value);
    const sealed = this.#box.seal(value, sealContextOf(name));
    this.#write(name, [
      `INSERT INTO secrets (name, value, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      [name, sealed, this.#clock().getTime()],
    ]);
  }

  delete(name: string): boolean {
    checkSecretName(name);
    const had = this.#values.delete(name);
    if (had) this.#write(name, ['DELETE FROM secrets WHERE name = $1', [name]]);
    return had;
  }

  /** Resolves once every set and delete made so far is in the database; rejects with the first that failed. */
  async flush(): Promise<void> {
    await this.#tail;
    const [failed] = this.#failed;
    this.#failed = [];
    if (failed !== undefined) throw failed;
  }

  /** One write and its NOTIFY in a transaction, after the writes before it. */
  #write(name: string, [sql, params]: [string, unknown[]]): void {
    this.#writing.set(name, (this.#writing.get(name) ?? 0) + 1);
    this.#tail = this.#tail.then(async () => {
      try {
        await tx(this.#pool, async (client) => {
          await client.query(sql, params);
          await client.query('SELECT pg_notify($1, $2)', [CHANNELS.secrets, name]);
        });
      } catch (err) {
        this.#failed.push(err);
        this.#log(`Writing the secret ${name} to the team database failed`, err);
      } finally {
        const left = (this.#writing.get(name) ?? 1) - 1;
        if (left > 0) this.#writing.set(name, left);
        else this.#writing.delete(name);
      }
    });
  }

  async #readAll(): Promise<void> {
    const { rows } = await this.#pool.query<{ name: string; value: string }>(
      'SELECT name, value FROM secrets',
    );
    let values: Map<string, string>;
    try {
      values = new Map(rows.map((r) => [r.name, this.#box.open(r.value, sealContextOf(r.name))]));
    } catch (err) {
      throw new AppError(
        'internal_error',
        'The secrets in the team database cannot be decrypted: SHEETPORT_SECRET_KEY is not the key they were ' +
          'sealed with. Give every instance the same key.',
        { cause: String(err) },
      );
    }
    // Our own writes still under way win over what the database said before them.
    for (const name of this.#writing.keys()) {
      const mine = this.#values.get(name);
      if (mine === undefined) values.delete(name);
      else values.set(name, mine);
    }
    this.#values = values;
  }

  async #readOne(name: string): Promise<void> {
    if (this.#writing.has(name)) return; // our write's own NOTIFY will follow it
    const { rows } = await this.#pool.query<{ value: string }>('SELECT value FROM secrets WHERE name = $1', [
      name,
    ]);
    if (this.#writing.has(name)) return;
    const stored = rows[0];
    if (stored) this.#values.set(name, this.#box.open(stored.value, sealContextOf(name)));
    else this.#values.delete(name);
  }
}

/**
 * The real values a request may name, as the run learns them: ids the service handed out (webhooks, deliveries,
 * keys, logins, sign-in codes), row ETags, row numbers of the tab as it is. A generated request names a pool
 * and a pick; the pick is resolved when the request is sent, against what the pool holds by then.
 */
import type { Target } from './target.ts';
import { ORDER_COLUMNS, ORDERS } from './workbook.ts';

export type PoolName =
  | 'userKey'
  | 'sheetName'
  | 'sheetId'
  | 'spreadsheetId'
  | 'row'
  | 'header'
  | 'webhookId'
  /** Webhooks the run registered itself: the ones it may delete. */
  | 'ownWebhookId'
  | 'deliveryId'
  /** Keys made by the run (never the run's own keys): the ones it may revoke or re-plan. */
  | 'spareKeyId'
  | 'keyId'
  | 'connectionId'
  /** The spare connection alone: the one the run may remove. */
  | 'spareConnectionId'
  | 'location'
  | 'loginId'
  | 'signInCode'
  | 'session'
  | 'etag'
  | 'idempotencyKey'
  | 'streamToken'
  | 'webhookUrl';

/** A value to take from a pool when the request is sent. */
export interface Pick {
  pool: PoolName;
  pick: number;
  /** Sent as a JSON number (a row number in a body), not text. */
  asNumber?: boolean;
}

const isPick = (v: object): v is Pick => 'pool' in v && 'pick' in v;
/** A row's fields whose names may be picks: `{ rowEntries: [[name, value], ...] }`, filled into an object. */
/** Names joined into a list parameter (`sort=-Total,Customer`): `{ joined: [[prefix, pick], ...] }`. */
const isJoined = (v: object): v is { joined: [string, Pick][] } => 'joined' in v;
const isRowEntries = (v: object): v is { rowEntries: [unknown, unknown][] } => 'rowEntries' in v;

export class Pools {
  readonly #values = new Map<PoolName, string[]>();
  rowCount = 0;

  constructor(target: Target) {
    this.set('userKey', [target.userKey, target.userKey, target.spare.userKey]);
    this.set('sheetName', [ORDERS, ORDERS, ORDERS, ORDERS.toLowerCase()]);
    this.set('sheetId', [target.sheetId]);
    this.set('spreadsheetId', [target.spreadsheetId, target.spare.spreadsheetId]);
    this.set('header', [...ORDER_COLUMNS]);
    this.set('webhookId', [target.webhookId]);
    this.set('connectionId', [target.spreadsheetId, target.spare.spreadsheetId]);
    this.set('spareConnectionId', [target.spare.spreadsheetId]);
    this.set('location', [target.spareFile, target.ordersFile]);
    this.set('idempotencyKey', ['idem-a', 'idem-b', 'idem-c']);
    this.set('webhookUrl', [target.receiverUrl]);
  }

  set(pool: PoolName, values: string[]): void {
    this.#values.set(pool, values);
  }

  /** Remembers a value the service handed out (a pool keeps the latest 50). */
  add(pool: PoolName, value: string): void {
    const values = this.#values.get(pool) ?? [];
    if (!values.includes(value)) values.push(value);
    if (values.length > 50) values.shift();
    this.#values.set(pool, values);
  }

  remove(pool: PoolName, value: string): void {
    this.#values.set(
      pool,
      (this.#values.get(pool) ?? []).filter((v) => v !== value),
    );
  }

  /** The pick's value; rows are numbers of the tab as it is now, one past its end included. */
  resolve({ pool, pick }: Pick): string {
    if (pool === 'row') return String((pick % (this.rowCount + 2)) + 1);
    const values = this.#values.get(pool) ?? [];
    if (values.length === 0) return `no-${pool}`;
    return values[pick % values.length]!;
  }

  /** The generated value with every pick replaced by what it names (in bodies, at any depth). */
  fill(value: unknown): unknown {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((v) => this.fill(v));
    if (isPick(value)) return value.asNumber ? Number(this.resolve(value)) : this.resolve(value);
    if (isJoined(value)) return value.joined.map(([prefix, p]) => `${prefix}${this.resolve(p)}`).join(',');
    const entries = isRowEntries(value) ? value.rowEntries : Object.entries(value);
    return Object.fromEntries(entries.map(([k, v]) => [String(this.fill(k)), this.fill(v)]));
  }
}

/**
 * The outbox: one delivery per notification and webhook, with its attempts. A delivery is `pending` (due at
 * nextAttemptAt), `in_flight` (claimed under a claim; an expired claim makes it claimable again, so it goes out
 * again with the same id), `succeeded` or `failed`. Times are epoch milliseconds. Deliveries are queued by the
 * change recording alone, in the transaction that records the change (rules/change-recording.ts); the rules of
 * the rest are rules/outbox.ts's, over either database.
 */

export type DeliveryState = 'pending' | 'in_flight' | 'succeeded' | 'failed';

export interface DeliveryRecord {
  id: string;
  webhookId: string;
  event: string;
  /** The exact JSON body sent on every attempt. */
  payload: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: number | null;
  replay: boolean;
  createdAt: number;
  completedAt: number | null;
}

export interface AttemptRecord {
  attempt: number;
  trigger: 'auto' | 'replay';
  startedAt: number;
  durationMs: number;
  status: number | null;
  error: string | null;
  responseExcerpt: string | null;
  /** The IP address the attempt went to (connected, tried or refused); null when none was reached. */
  targetAddress: string | null;
  /** Its class (`public`, `private`, `loopback`, ... or `none`); null for attempts recorded before classes were. */
  targetKind: string | null;
  /** The headers it sent (signatures included); null for attempts recorded before they were kept. */
  requestHeaders: Record<string, string> | null;
}

/** One attempt as the worker reports it: its number comes from the delivery. */
export type AttemptOutcome = Omit<
  AttemptRecord,
  'attempt' | 'targetAddress' | 'targetKind' | 'requestHeaders'
> &
  Partial<Pick<AttemptRecord, 'targetAddress' | 'targetKind' | 'requestHeaders'>>;

export interface NextState {
  state: DeliveryState;
  nextAttemptAt: number | null;
  completedAt: number | null;
}

export interface DeliveryPage {
  total: number;
  data: DeliveryRecord[];
}

export interface Deliveries {
  /**
   * Claim up to `limit` due deliveries of active webhooks (pending and due, or in flight with an expired claim),
   * claiming them until `nowMs + claimMs`, atomically. `accept` may turn one down (its webhook is at its cap).
   */
  claimDue(
    nowMs: number,
    limit: number,
    claimMs: number,
    accept?: (d: DeliveryRecord) => boolean,
  ): Promise<DeliveryRecord[]>;
  /** When the next pending delivery of an active webhook is due (or a claim expires); null when none. */
  nextDueAt(): Promise<number | null>;
  /** Record one attempt and the delivery's new state, atomically. */
  settle(delivery: DeliveryRecord, attempt: AttemptOutcome, next: NextState): Promise<void>;
  get(id: string): Promise<DeliveryRecord | null>;
  attemptsOf(id: string): Promise<AttemptRecord[]>;
  /** A webhook's deliveries, newest first, optionally one state. */
  page(
    webhookId: string,
    options: { state?: DeliveryState; limit: number; offset: number },
  ): Promise<DeliveryPage>;
  /** A manual replay: a new attempt now. False when it is in flight right now. */
  requestReplay(id: string, nowMs: number): Promise<boolean>;
  /** Changes when another process commits to the outbox (work queued elsewhere); never for this one's writes. */
  externalVersion(): Promise<number>;
  /** Log retention: forget finished deliveries (and their attempts) completed before `beforeMs`. */
  purgeFinished(beforeMs: number): Promise<number>;
}

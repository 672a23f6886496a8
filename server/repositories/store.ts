/**
 * A store: every repository over one database, as the service's wiring (context.ts) and the CLI open it. Two
 * implementations: store/ (SQLite in the data dir, the embedded default) and store-pg/ (PostgreSQL, team mode:
 * several instances on one database, docs/deploy.md). Nothing above this layer knows which one it has.
 */
import type { SecretsProvider } from '../secrets/provider.ts';
import type { ChangeLog, ChangeRecording } from './change-log.ts';
import type { Repositories } from './index.ts';
import type { Ownership } from './ownership.ts';
import type { SharedLimits } from './shared-limits.ts';
import type { Webhooks } from './webhooks.ts';

export type StoreKind = 'sqlite' | 'postgres';

export interface Store extends Repositories {
  readonly kind: StoreKind;
  /** `hasAnyNow` answers at once (the follower asks on each look): from the database or a cache it keeps. */
  webhooks: Webhooks & { hasAnyNow(spreadsheetId: string): boolean };
  changeLog: ChangeLog;
  changeRecording: ChangeRecording;
  /** Named secrets (a kind's account tokens, the tunnel's authtoken): the data dir's provider, or the database's. */
  secrets: SecretsProvider;
  /** What instances sharing the database coordinate through; absent on one machine. */
  team?: TeamServices;
  /** Resolves when the database answers and its migrations are done (`/readyz`); rejects saying why not. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface TeamServices {
  /** This instance's name in leases and logs. */
  readonly instanceId: string;
  /** One owner per spreadsheet across instances, and the lock that serialises their writes. */
  ownership: Ownership;
  /** Per-key limits counted for the whole team. */
  limits: SharedLimits;
  /** `listener` hears every spreadsheet any instance records a change of, with the source version recorded (null
   * when unknown), or (null, null) when any may have changed unheard (the database connection came back);
   * returns the unsubscribe. */
  onRecorded(listener: (spreadsheetId: string | null, version: string | null) => void): () => void;
}

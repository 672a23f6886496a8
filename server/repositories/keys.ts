/**
 * API keys: the records and the async repository the routes, the CLI and the limits read them through. The
 * embedded implementation is store/api-keys.ts (SQLite); only a key's sha256 is ever stored.
 */

export type KeyScope = 'read' | 'read_write';
export type KeyPlan = 'free' | 'pro' | 'enterprise';

export const KEY_SCOPES: readonly KeyScope[] = ['read', 'read_write'];
export const KEY_PLANS: readonly KeyPlan[] = ['free', 'pro', 'enterprise'];

export interface ApiKeyRecord {
  /** 'key_' + 10 url-safe chars; public, safe to log. */
  id: string;
  name: string;
  /** First 12 chars of the key, for recognising it. */
  prefix: string;
  scope: KeyScope;
  plan: KeyPlan;
  /** Per-key overrides of the plan's limits; null = plan default. */
  perSecond: number | null;
  daily: number | null;
  allowFormulas: boolean;
  /** Spreadsheet ids the key may use; empty = all. */
  connections: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface CreateApiKeyInput {
  name?: string;
  scope?: KeyScope;
  plan?: KeyPlan;
  /** Spreadsheet ids; each must be a registered connection. Empty = all. */
  connections?: string[];
  allowFormulas?: boolean;
  perSecond?: number | null;
  daily?: number | null;
}

export interface PlanChange {
  plan: KeyPlan;
  perSecond?: number | null;
  daily?: number | null;
}

export interface Keys {
  /** Create a key. The plaintext `key` is returned only here; it cannot be recovered later. */
  create(input?: CreateApiKeyInput): Promise<{ record: ApiKeyRecord; key: string }>;
  /** The key's record (revoked ones too: check `revokedAt`); null for a string that is no key of ours. Runs on
   * every request: an index lookup. */
  findByKey(key: string): Promise<ApiKeyRecord | null>;
  /** Change a key's plan (and, for Enterprise, its numbers); takes effect on the key's next request. */
  setPlan(id: string, change: PlanChange): Promise<ApiKeyRecord | null>;
  get(id: string): Promise<ApiKeyRecord | null>;
  list(): Promise<ApiKeyRecord[]>;
  /** False when there is no such key or it was already revoked. */
  revoke(id: string): Promise<boolean>;
  /** Record that the key was just used (throttled; a hint only, never fails a request). Whether it wrote. */
  touch(id: string): Promise<boolean>;
}

/**
 * The MCP sessions open on one app (http/mcp.ts): each bound to the key that opened it, ended when the client
 * deletes it, when nobody used it for 30 minutes, when its key is revoked (within SWEEP_MS; every request of a
 * revoked key is refused at once anyway), or when the server stops. Their resource subscriptions listen to the
 * service's tab changes (changes/tab-changes.ts).
 */
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { TabChanges } from '../changes/tab-changes.ts';
import type { ApiKeyRecord, Keys } from '../repositories/keys.ts';
import type { AppDeps } from './deps.ts';

/** How often sessions are looked over for idleness and revoked keys. */
const SWEEP_MS = 15_000;
/** A session nobody has used for this long is closed (its client starts a new one if it comes back). */
const IDLE_MS = 30 * 60_000;
/** Sessions one key may hold open; a new one beyond it closes that key's least recently used. */
const SESSIONS_PER_KEY = 32;

export interface McpSession {
  id: string;
  keyId: string;
  /** The key as the session's latest request admitted it: its tool calls are made as this (http/route-call.ts). */
  admitted: { key: ApiKeyRecord };
  transport: StreamableHTTPServerTransport;
  close(): void;
  lastUsed: number;
}

export class McpSessions {
  readonly #sessions = new Map<string, McpSession>();
  readonly #sweep: NodeJS.Timeout;
  readonly #keys: Keys;
  readonly #log: AppDeps['log'];
  readonly tabChanges: TabChanges;
  readonly now: () => number;

  constructor(deps: Pick<AppDeps, 'tabChanges' | 'keys' | 'log'>, now: () => number) {
    this.now = now;
    this.tabChanges = deps.tabChanges;
    this.#keys = deps.keys;
    this.#log = deps.log;
    this.#sweep = setInterval(() => void this.#sweepOnce(), SWEEP_MS);
    this.#sweep.unref();
  }

  get(id: string): McpSession | undefined {
    return this.#sessions.get(id);
  }

  add(session: McpSession): void {
    this.#sessions.set(session.id, session);
    const ofKey = [...this.#sessions.values()].filter((s) => s.keyId === session.keyId);
    if (ofKey.length > SESSIONS_PER_KEY) {
      const oldest = ofKey.reduce((a, b) => (a.lastUsed <= b.lastUsed ? a : b));
      this.end(oldest.id);
    }
  }

  end(id: string): void {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(id);
    session.close();
  }

  closeAll(): void {
    clearInterval(this.#sweep);
    for (const id of [...this.#sessions.keys()]) this.end(id);
  }

  /** Ends the sessions nobody used for IDLE_MS, and those of a key revoked since (its open stream with it). */
  async #sweepOnce(): Promise<void> {
    const before = this.now() - IDLE_MS;
    for (const session of [...this.#sessions.values()]) if (session.lastUsed < before) this.end(session.id);
    try {
      for (const keyId of new Set([...this.#sessions.values()].map((s) => s.keyId))) {
        const key = await this.#keys.get(keyId);
        if (key && !key.revokedAt) continue;
        for (const session of [...this.#sessions.values()]) if (session.keyId === keyId) this.end(session.id);
      }
    } catch (err) {
      this.#log('Looking for revoked keys of MCP sessions failed; tried again shortly', err);
    }
  }
}

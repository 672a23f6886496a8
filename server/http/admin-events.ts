/**
 * `/admin/events`: live updates for the dashboard as server-sent events. An EventSource cannot send an
 * Authorization header, so the page first asks `POST /admin/events/token` (with the admin token, like every
 * admin call) for a stream token: random, good for one connection, for STREAM_TOKEN_TTL_MS. It goes in the
 * query (`?stream_token=`; the request log redacts it). A cross-site page can neither get one (it has no admin
 * token, and no CORS answer lets it read one) nor read the stream; the stream changes nothing.
 */

import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import type { TabChangesSeen } from '../changes/tab-changes.ts';
import { toPublicSheetId } from '../connections/sheet-id.ts';
import { RetryStreak } from '../lib/retry-streak.ts';
import type { AppDeps } from './deps.ts';
import type { RouteTable } from './route-table.ts';

export const EVENTS_PATH = '/admin/events';
export const STREAM_TOKEN_TTL_MS = 60_000;
/**
 * How often an open stream looks at the delivery log's fingerprint (an index lookup), and how often it sends a
 * keep-alive comment. The delivery log is looked at, not told: in team mode another instance's worker records its
 * attempts without a word to this one. Changed tabs are told (`sheets` below), never looked for.
 */
const POLL_MS = 1000;
const KEEP_ALIVE_MS = 15_000;

/**
 * One-use stream tokens, held in memory (a restart forgets them, and the page simply asks again), and the open
 * streams, which a stopping server ends (`closeAll`) so they never hold its stop up.
 */
export class AdminEventStreams {
  readonly #now: () => number;
  readonly #expiry = new Map<string, number>();
  readonly open = new Set<{ end(): void }>();

  constructor(now: () => number) {
    this.#now = now;
  }

  issue(): { token: string; expiresAt: number } {
    const now = this.#now();
    for (const [token, until] of this.#expiry) if (until <= now) this.#expiry.delete(token);
    const token = randomBytes(24).toString('base64url');
    const expiresAt = now + STREAM_TOKEN_TTL_MS;
    this.#expiry.set(token, expiresAt);
    return { token, expiresAt };
  }

  /** True (once) for a live token on `GET /admin/events`; the token is spent either way. */
  admits(req: Request): boolean {
    if (req.method !== 'GET' || req.path !== EVENTS_PATH) return false;
    const token = req.query.stream_token;
    if (typeof token !== 'string') return false;
    const until = this.#expiry.get(token);
    this.#expiry.delete(token);
    return until !== undefined && until > this.#now();
  }

  closeAll(): void {
    for (const stream of this.open) stream.end();
    this.open.clear();
  }
}

/**
 * `sheets`: the tabs whose rows changed (a write through the API, an outside save the connection follower
 * recorded, a change another instance or the CLI recorded), by their public sheet ids, so an open preview reads
 * its tab again. Told by the service's tab changes (changes/tab-changes.ts) as they are recorded.
 */
function sheetsEvent({ head, tabs }: TabChangesSeen): string {
  const changed = tabs.map((t) => ({
    spreadsheet_id: t.spreadsheetId,
    sheet_id: toPublicSheetId(t.spreadsheetId, t.sourceSheetId),
  }));
  return `event: sheets\ndata: ${JSON.stringify({ version: head, changed })}\n\n`;
}

export function mountAdminEventRoutes(
  routes: RouteTable,
  deps: Pick<AppDeps, 'tabChanges' | 'deliveryLog' | 'log'>,
  streams: AdminEventStreams,
): void {
  routes.post('/admin/events/token', 'admin', (_req, res) => {
    const { token, expiresAt } = streams.issue();
    res.status(201).json({ stream_token: token, expires_at: new Date(expiresAt).toISOString() });
  });

  routes.get(EVENTS_PATH, 'admin', (req, res) => {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.flushHeaders();
    let last = '';
    const stopSheets = deps.tabChanges.listen((seen) => {
      if (!res.writableEnded) res.write(sheetsEvent(seen));
    });
    const check = async () => {
      const fingerprint = await deps.deliveryLog.fingerprint();
      if (fingerprint === last) return;
      last = fingerprint;
      res.write(`event: deliveries\ndata: ${JSON.stringify({ version: fingerprint })}\n\n`);
    };
    res.write('retry: 3000\n\n');
    // From a timer a throw would end the process: a failing look at the delivery log (the database unreadable) is
    // logged once and tried again on the next tick; a look still under way is not started twice.
    const looking = new RetryStreak({ name: "The dashboard's event stream", log: deps.log, minMs: POLL_MS });
    let busy = false;
    const look = () => {
      if (busy || !looking.due()) return;
      busy = true;
      check()
        .then(
          () => looking.succeeded(),
          (err: unknown) => looking.failed(err),
        )
        .finally(() => {
          busy = false;
        });
    };
    look();
    const poll = setInterval(look, POLL_MS);
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    streams.open.add(res);
    req.on('close', () => {
      streams.open.delete(res);
      stopSheets();
      clearInterval(poll);
      clearInterval(keepAlive);
    });
  });
}

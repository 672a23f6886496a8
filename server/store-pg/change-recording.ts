/**
 * The change recording in PostgreSQL (repositories/change-log.ts): one transaction appends the change log,
 * queues the notifications (the outbox), renames the webhooks of a renamed tab, stores the baselines and tells
 * every instance (NOTIFY, delivered when it commits). Several instances may record one spreadsheet: a lock per
 * spreadsheet taken in the transaction puts their recordings one after another, a version recorded already
 * records nothing (nothing is sent twice), and an instance whose in-memory content is older than what another
 * one recorded compares with the stored baselines instead, so it records only what is new since.
 */
import { randomBytes } from 'node:crypto';
import type { TabContent } from '../repositories/baselines.ts';
import type {
  ChangeRecording,
  RecordingRequest,
  RowChanges,
  TabRecording,
} from '../repositories/change-log.ts';
import { encodeCheckpointPaced } from '../store/baseline-format.ts';
import type { PgBaselines } from './baselines.ts';
import type { PgChangeLog } from './change-log.ts';
import { CHANNELS, recordedPayload } from './channels.ts';
import { type Client, type Pool, tx } from './pool.ts';
import { renameTabWebhooks, takeTimestamps, webhooksOnTab } from './tab-webhooks.ts';

/** What a recording worked out before its transaction, and the generation of the baselines it is based on. */
interface Prepared {
  generation: number;
  tabs: TabRecording[];
  encoded: ReadonlyMap<TabContent, Buffer>;
}

interface Committed {
  queued: number;
  renamed: boolean;
}

export class PgChangeRecording implements ChangeRecording {
  readonly #pool: Pool;
  readonly #baselines: PgBaselines;
  readonly #changeLog: PgChangeLog;
  /**
   * Per spreadsheet, the generation the stored baselines had when this instance last recorded (or found
   * its version recorded): while it still has it, the in-memory previous content is what is stored.
   */
  readonly #inStep = new Map<string, number>();

  constructor(pool: Pool, baselines: PgBaselines, changeLog: PgChangeLog) {
    this.#pool = pool;
    this.#baselines = baselines;
    this.#changeLog = changeLog;
  }

  async record(request: RecordingRequest): Promise<{ queued: number }> {
    const prepared = await this.#prepare(request);
    const { queued, generation } = await tx(this.#pool, (client) =>
      this.#recordNow(client, request, prepared),
    );
    this.#inStep.set(request.spreadsheetId, generation);
    return { queued };
  }

  /**
   * The slow parts before the transaction, as SQLite's: the content to compare with (the in-memory previous when
   * nobody recorded since this instance did, else the stored baselines), the plan, and the checkpoints it will
   * store, encoded a slice at a time. The transaction takes them when nothing was recorded meanwhile.
   */
  async #prepare(request: RecordingRequest): Promise<Prepared> {
    const { spreadsheetId, previous } = request;
    const { generation } = await this.#baselines.recorded(this.#pool, spreadsheetId);
    const inStep = previous !== null && this.#inStep.get(spreadsheetId) === generation;
    const tabs = request.plan(inStep ? previous : await this.#baselines.load(spreadsheetId));
    const encoded = new Map<TabContent, Buffer>();
    for (const tab of tabs) {
      if (await this.#checkpointDue(spreadsheetId, tab))
        encoded.set(tab.content, await encodeCheckpointPaced(tab.content));
    }
    return { generation, tabs, encoded };
  }

  async #checkpointDue(
    spreadsheetId: string,
    { sourceSheetId, checkpoint, rows }: TabRecording,
  ): Promise<boolean> {
    if (checkpoint === 'now') return true;
    if (rows === null) return false;
    const stored = await this.#baselines.editsAfterCheckpoint(this.#pool, spreadsheetId, sourceSheetId);
    return stored + rows.edits.length > checkpoint.whenEditsOver;
  }

  async #recordNow(
    client: Client,
    request: RecordingRequest,
    prepared: Prepared,
  ): Promise<{ queued: number; generation: number }> {
    const { spreadsheetId, version, previous } = request;
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`rec:${spreadsheetId}`]);
    const stored = await this.#baselines.recorded(client, spreadsheetId);
    // Another instance (or the CLI) recorded this very version already: recording it again would send twice.
    if (previous && stored.version === version) return { queued: 0, generation: stored.generation };
    // Someone recorded meanwhile: what the plan compared with is no longer what is stored.
    const tabs =
      stored.generation === prepared.generation
        ? prepared.tabs
        : request.plan(await this.#baselines.load(spreadsheetId, client));
    // Nothing to store, at the version stored already (a first sight of what another instance recorded).
    if (tabs.length === 0 && stored.version === version) return { queued: 0, generation: stored.generation };
    const done: Committed = { queued: 0, renamed: false };
    for (const tab of tabs) await this.#recordTab(client, request, tab, prepared.encoded, done);
    const generation = await this.#baselines.markVersion(client, spreadsheetId, version);
    // Delivered when the transaction commits: every instance reads again, workers claim, caches refresh.
    const notify: [string, string][] = [[CHANNELS.recorded, recordedPayload(spreadsheetId, version)]];
    if (done.queued > 0) notify.push([CHANNELS.deliveries, '']);
    if (done.renamed) notify.push([CHANNELS.registry, '']);
    await client.query(
      'SELECT pg_notify(n.channel, n.payload) FROM unnest($1::text[], $2::text[]) AS n(channel, payload)',
      [notify.map(([channel]) => channel), notify.map(([, payload]) => payload)],
    );
    return { queued: done.queued, generation };
  }

  /** One tab's part of the transaction. */
  async #recordTab(
    client: Client,
    { spreadsheetId, version, nowMs }: RecordingRequest,
    tab: TabRecording,
    encoded: ReadonlyMap<TabContent, Buffer>,
    done: Committed,
  ): Promise<void> {
    const { sourceSheetId, renamedTo, content, rows, checkpoint } = tab;
    // Webhooks follow their tab by id; the name they show follows a rename (also one made while stopped).
    if (renamedTo !== null && (await renameTabWebhooks(client, spreadsheetId, sourceSheetId, renamedTo)))
      done.renamed = true;
    if (rows) {
      await this.#changeLog.append(client, spreadsheetId, sourceSheetId, rows.entries, nowMs);
      done.queued += await this.#notify(client, spreadsheetId, sourceSheetId, rows, nowMs);
    }
    const storeWhole =
      checkpoint === 'now' ||
      (rows !== null &&
        (await this.#baselines.addEdits(client, spreadsheetId, sourceSheetId, rows.edits)) >
          checkpoint.whenEditsOver);
    if (storeWhole) {
      const target = { spreadsheetId, sourceSheetId, content };
      await this.#baselines.checkpoint(client, target, nowMs, version, encoded.get(content));
    }
  }

  /** Queues each notification for every webhook on the tab that subscribes to its event. */
  async #notify(
    client: Client,
    spreadsheetId: string,
    sourceSheetId: string,
    rows: RowChanges,
    nowMs: number,
  ): Promise<number> {
    let queued = 0;
    for (const webhook of await webhooksOnTab(client, spreadsheetId, sourceSheetId)) {
      const wanted = rows.notifications.filter((n) => webhook.events.includes(n.event));
      if (wanted.length === 0) continue;
      const first = await takeTimestamps(client, webhook.id, nowMs, wanted.length);
      for (const [i, notification] of wanted.entries()) {
        const payload = notification.payload(webhook.id, first + i);
        await client.query(
          `INSERT INTO deliveries (id, webhook_id, event, payload, state, attempts, next_attempt_at, replay, created_at)
           VALUES ($1, $2, $3, $4, 'pending', 0, $5, false, $5)`,
          [`dlv_${randomBytes(12).toString('base64url')}`, webhook.id, notification.event, payload, nowMs],
        );
        queued++;
      }
    }
    return queued;
  }
}

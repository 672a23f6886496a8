/**
 * The change recording (change-log.ts), once for both databases: one transaction appends the change log with
 * the tab's instant, queues a notification per subscribed webhook (the outbox) with that webhook's next payload
 * timestamp, renames the webhooks of a renamed tab and stores the baselines (row edits, or a checkpoint), or
 * does none of it. Several holders of one database (processes sharing a data dir, team mode's instances) may
 * record one spreadsheet: their recordings run one after another (`lock`), a version recorded already records
 * nothing (nothing is sent twice), and one whose in-memory content is older than what another recorded compares
 * with the stored baselines instead, so it records only what is new since. Each database implements
 * `RecordingStatements` in its SQL (store/recording.ts, store-pg/recording.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Baselines, ComparedTab, TabContent } from '../baselines.ts';
import type {
  ChangeEntry,
  ChangeRecording,
  RecordingRequest,
  RowChanges,
  TabRecording,
} from '../change-log.ts';
import type { WebhookCondition } from '../webhooks.ts';
import { encodeCheckpoint, encodeCheckpointPaced, encodeRedo } from './baseline-format.ts';
import {
  type CheckpointPartStatements,
  dropUnlinked,
  dropUnlinkedAfter,
  storeCheckpointNow,
  storeCheckpointPaced,
} from './checkpoint-parts.ts';
import { type Answer, type Rule, settled, type Transactional } from './transactional.ts';

/** What a spreadsheet's stored baselines are at. */
export interface RecordedState {
  /** Moves whenever anything is recorded for the spreadsheet, by any holder of the database. */
  stamp: string;
  /** Whether the version asked about was recorded already. */
  versionRecorded: boolean;
}

/** A webhook on a tab, as the recording reads it. */
export interface TabWebhook {
  id: string;
  events: string[];
  condition: WebhookCondition | null;
}

/** A notification queued in the outbox, due at once. */
export interface QueuedDelivery {
  id: string;
  webhookId: string;
  event: string;
  payload: string;
  atMs: number;
}

/** The tab a baseline is stored for. */
export interface BaselineTab {
  spreadsheetId: string;
  sourceSheetId: string;
}

export interface RecordingStatements extends CheckpointPartStatements {
  recorded(spreadsheetId: string, version: string): Answer<RecordedState>;
  /** Every stored baseline of the spreadsheet, as it is inside the transaction. */
  baselines(spreadsheetId: string): Answer<Map<string, ComparedTab>>;
  /** How many row edits a tab's baseline holds after its checkpoint (0 without one). */
  editsAfterCheckpoint(tab: BaselineTab): Answer<number>;
  /** The webhooks on the tab show `name`; true when one did not already. */
  renameTabWebhooks(tab: BaselineTab, name: string): Answer<boolean>;
  /** The instant of the tab's newest change-log entry (0: none). */
  lastInstant(tab: BaselineTab): Answer<number>;
  /** Appends entries in their order; their sequence grows in commit order. */
  append(tab: BaselineTab, entries: readonly ChangeEntry[]): Answer<void>;
  /** The webhooks on a tab in creation order: `created_at`, then the database's insertion order. */
  webhooksOnTab(tab: BaselineTab): Answer<TabWebhook[]>;
  /** Takes `count` payload timestamps of a webhook, the first `firstAtLeast` or 1 ms after the last one given
   * (strictly increasing per webhook); returns the first. */
  takeTimestamps(webhookId: string, firstAtLeast: number, count: number): Answer<number>;
  enqueue(deliveries: readonly QueuedDelivery[]): Answer<void>;
  /** One recorded change's row edits (`redo`, encoded), after the checkpoint; returns how many it holds now. */
  addEdits(tab: BaselineTab, redo: Buffer, count: number): Answer<number>;
  /** The tab's checkpoint (its parts stored) replaces the last one, whose parts go, and the edits after it. */
  checkpoint(
    tab: BaselineTab,
    name: string,
    nowMs: number,
    version: string,
    checkpointId: string,
  ): Answer<void>;
  /** Every baseline of the spreadsheet matches `version` from now; returns the stamp the recording leaves. */
  markVersion(spreadsheetId: string, version: string): Answer<string>;
  /** Whoever else holds the database hears of the recording once it commits. */
  announce(spreadsheetId: string, version: string, done: Done): Answer<void>;
}

/** What a recording did. */
export interface Done {
  queued: number;
  renamed: boolean;
  /** The checkpoints it linked to their tabs. */
  linked: string[];
}

/** What a recording worked out before its transaction, and the stamp of the baselines it is based on. */
interface Prepared {
  stamp: string;
  tabs: TabRecording[];
  /** The checkpoints it will store, their parts stored already (checkpoint-parts.ts), by content. */
  checkpoints: ReadonlyMap<TabContent, string>;
}

export class ChangeRecordingRepository implements ChangeRecording {
  readonly #db: Transactional<RecordingStatements>;
  readonly #baselines: Baselines;
  /**
   * Per spreadsheet, the stamp the stored baselines had when this holder last recorded (or found its version
   * recorded): while they still have it, the in-memory previous content is what is stored.
   */
  readonly #inStep = new Map<string, string>();

  constructor(db: Transactional<RecordingStatements>, baselines: Baselines) {
    this.#db = db;
    this.#baselines = baselines;
  }

  async record(request: RecordingRequest): Promise<{ queued: number }> {
    const prepared = await this.#prepare(request);
    let linked: string[] = [];
    try {
      const done = await this.#db.transaction((s) => recordNow(s, request, prepared), {
        lock: `rec:${request.spreadsheetId}`,
      });
      linked = done.linked;
      this.#inStep.set(request.spreadsheetId, done.stamp);
      return { queued: done.queued };
    } finally {
      await dropUnlinked(
        this.#db,
        [...prepared.checkpoints.values()].filter((id) => !linked.includes(id)),
      );
    }
  }

  /**
   * The slow parts of a recording, done before its transaction and a slice at a time, so the service answers
   * meanwhile (a tab of a million rows takes seconds to encode): the content to compare with (the in-memory
   * previous while nobody recorded since this holder did, else the stored baselines), the plan, and the
   * checkpoints it will store, encoded and stored in parts. The transaction links them when nothing was
   * recorded meanwhile.
   */
  async #prepare(request: RecordingRequest): Promise<Prepared> {
    const { spreadsheetId, previous, version } = request;
    const { stamp } = await this.#db.statements.recorded(spreadsheetId, version);
    const inStep = previous !== null && this.#inStep.get(spreadsheetId) === stamp;
    const compared = inStep ? previous : await this.#baselines.load(spreadsheetId, request.current);
    const tabs = request.planPaced ? await request.planPaced(compared) : request.plan(compared);
    const checkpoints = new Map<TabContent, string>();
    try {
      for (const tab of tabs) {
        if (!(await this.#db.run((s) => checkpointDue(s, spreadsheetId, tab)))) continue;
        const parts = await encodeCheckpointPaced(tab.content);
        checkpoints.set(tab.content, await storeCheckpointPaced(this.#db, parts, request.nowMs));
      }
    } catch (error) {
      await dropUnlinkedAfter(error, this.#db, checkpoints.values());
    }
    return { stamp, tabs, checkpoints };
  }
}

function* checkpointDue(
  s: RecordingStatements,
  spreadsheetId: string,
  { sourceSheetId, checkpoint, rows }: TabRecording,
): Rule<boolean> {
  if (checkpoint === 'now') return true;
  if (rows === null) return false;
  const stored = yield* settled(s.editsAfterCheckpoint({ spreadsheetId, sourceSheetId }));
  return stored + rows.edits.length > checkpoint.whenEditsOver;
}

function* recordNow(
  s: RecordingStatements,
  request: RecordingRequest,
  prepared: Prepared,
): Rule<Done & { stamp: string }> {
  const { spreadsheetId, version, previous } = request;
  const stored = yield* settled(s.recorded(spreadsheetId, version));
  // Another holder of the database recorded this very version already: recording it again would send twice.
  if (previous && stored.versionRecorded) return { ...nothingDone(), stamp: stored.stamp };
  // Someone recorded meanwhile: what the plan compared with is no longer what is stored.
  const tabs =
    stored.stamp === prepared.stamp
      ? prepared.tabs
      : request.plan(yield* settled(s.baselines(spreadsheetId)));
  // Nothing to store, at a version stored already (a first sight of what another holder recorded).
  if (tabs.length === 0 && stored.versionRecorded) return { ...nothingDone(), stamp: stored.stamp };
  const done = nothingDone();
  for (const tab of tabs) yield* recordTab(s, request, tab, prepared.checkpoints, done);
  const stamp = yield* settled(s.markVersion(spreadsheetId, version));
  yield* settled(s.announce(spreadsheetId, version, done));
  return { ...done, stamp };
}

const nothingDone = (): Done => ({ queued: 0, renamed: false, linked: [] });

/** One tab's part of the transaction. */
function* recordTab(
  s: RecordingStatements,
  { spreadsheetId, version, nowMs }: RecordingRequest,
  tab: TabRecording,
  checkpoints: ReadonlyMap<TabContent, string>,
  done: Done,
): Rule<void> {
  const { sourceSheetId, renamedTo, content, rows, checkpoint } = tab;
  const at: BaselineTab = { spreadsheetId, sourceSheetId };
  // Webhooks follow their tab by id; the name they show follows a rename (also one made while stopped).
  if (renamedTo !== null && (yield* settled(s.renameTabWebhooks(at, renamedTo)))) done.renamed = true;
  if (rows) {
    yield* appendEntries(s, at, rows, nowMs);
    done.queued += yield* notify(s, at, rows, nowMs);
  }
  const storeWhole =
    checkpoint === 'now' ||
    (rows !== null &&
      (yield* settled(s.addEdits(at, encodeRedo(rows.edits), rows.edits.length))) > checkpoint.whenEditsOver);
  if (storeWhole) {
    const checkpointId =
      checkpoints.get(content) ?? (yield* storeCheckpointNow(s, encodeCheckpoint(content), nowMs));
    yield* settled(s.checkpoint(at, content.name, nowMs, version, checkpointId));
    done.linked.push(checkpointId);
  }
}

/**
 * The change's entries, stamped with the tab's next instant: now, or 1 ms after the tab's previous change if
 * that is not earlier. Every change of a tab thus has its own instant, and a client resuming with
 * `updated_since` equal to the last instant it saw can never skip a change recorded in the same millisecond.
 */
function* appendEntries(
  s: RecordingStatements,
  tab: BaselineTab,
  rows: RowChanges,
  nowMs: number,
): Rule<void> {
  if (rows.entries.length === 0) return;
  const instant = Math.max(nowMs, (yield* settled(s.lastInstant(tab))) + 1);
  yield* settled(
    s.append(
      tab,
      rows.entries.map((entry) => ({ ...entry, updatedAt: instant })),
    ),
  );
}

/**
 * Queues each notification for every webhook on the tab that subscribes to its event, webhook by webhook in
 * creation order; a webhook's payload timestamps increase strictly, also within one millisecond.
 */
function* notify(s: RecordingStatements, tab: BaselineTab, rows: RowChanges, nowMs: number): Rule<number> {
  let queued = 0;
  for (const webhook of yield* settled(s.webhooksOnTab(tab))) {
    const wanted = rows.notificationsFor(webhook.condition).filter((n) => webhook.events.includes(n.event));
    if (wanted.length === 0) continue;
    const first = yield* settled(s.takeTimestamps(webhook.id, nowMs, wanted.length));
    const deliveries = wanted.map((notification, i) => ({
      id: `dlv_${randomBytes(12).toString('base64url')}`,
      webhookId: webhook.id,
      event: notification.event,
      payload: notification.payload(webhook.id, first + i),
      atMs: nowMs,
    }));
    yield* settled(s.enqueue(deliveries));
    queued += deliveries.length;
  }
  return queued;
}

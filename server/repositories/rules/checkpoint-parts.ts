/**
 * A checkpoint stored in parts (baseline-format.ts, `Parts`), once for both databases. A recording stores its
 * checkpoints' parts before its transaction, a statement a part with a turn for other work between them, and the
 * transaction only links each to its tab (`RecordingStatements.checkpoint`), the tab's old parts going with the
 * link: at a million rows one statement storing the whole blob held the service for a quarter of a second. Parts
 * the transaction did not link (it failed, or planned again and stored other content) are dropped after it;
 * parts a stopped process left unlinked are dropped by a later recording, once they are an hour old.
 */
import { randomBytes } from 'node:crypto';
import { pacer } from '../../lib/pacer.ts';
import type { Parts } from './baseline-format.ts';
import { type Answer, type Rule, settled, type Transactional } from './transactional.ts';

export interface CheckpointPartStatements {
  /** Stores one part of a checkpoint's blob, before the checkpoint is linked to its tab. */
  putCheckpointPart(checkpointId: string, part: number, content: Buffer, nowMs: number): Answer<void>;
  /** Drops the parts of a checkpoint no tab was linked to. */
  dropCheckpoint(checkpointId: string): Answer<void>;
  /** Drops the parts stored before `beforeMs` of checkpoints no tab is linked to. */
  dropStrayCheckpoints(beforeMs: number): Answer<void>;
}

/** How old unlinked parts must be to be another's strays: storing and linking its own takes a recording seconds. */
const STRAY_AFTER_MS = 60 * 60 * 1000;

const newCheckpointId = () => `cp_${randomBytes(12).toString('base64url')}`;

/** Stores a checkpoint's parts a statement at a time, the service answering between them; returns its id. */
export async function storeCheckpointPaced(
  db: Transactional<CheckpointPartStatements>,
  parts: Parts,
  nowMs: number,
): Promise<string> {
  await db.run((s) => dropStrays(s, nowMs));
  const id = newCheckpointId();
  const pace = pacer();
  try {
    for (const [i, part] of parts.entries()) {
      await db.run((s) => putPart(s, id, i, part, nowMs));
      await pace();
    }
  } catch (error) {
    await dropUnlinkedAfter(error, db, [id]);
  }
  return id;
}

/** Stores a checkpoint's parts at once, inside a transaction; returns its id. */
export function* storeCheckpointNow(s: CheckpointPartStatements, parts: Parts, nowMs: number): Rule<string> {
  const id = newCheckpointId();
  for (const [i, part] of parts.entries()) yield* putPart(s, id, i, part, nowMs);
  return id;
}

/**
 * After `error` stopped a preparation, drops the checkpoints it had stored rather than leave them to the hour's
 * sweep, and throws `error` whether or not the drop worked (a full disk may refuse that too).
 */
export async function dropUnlinkedAfter(
  error: unknown,
  db: Transactional<CheckpointPartStatements>,
  checkpointIds: Iterable<string>,
): Promise<never> {
  await dropUnlinked(db, checkpointIds).catch(() => {});
  throw error;
}

/** Drops checkpoints stored but not linked to a tab. */
export async function dropUnlinked(
  db: Transactional<CheckpointPartStatements>,
  checkpointIds: Iterable<string>,
): Promise<void> {
  for (const id of checkpointIds) await db.run((s) => drop(s, id));
}

function* putPart(
  s: CheckpointPartStatements,
  id: string,
  i: number,
  part: Buffer,
  nowMs: number,
): Rule<void> {
  yield* settled(s.putCheckpointPart(id, i, part, nowMs));
}

function* drop(s: CheckpointPartStatements, id: string): Rule<void> {
  yield* settled(s.dropCheckpoint(id));
}

function* dropStrays(s: CheckpointPartStatements, nowMs: number): Rule<void> {
  yield* settled(s.dropStrayCheckpoints(nowMs - STRAY_AFTER_MS));
}

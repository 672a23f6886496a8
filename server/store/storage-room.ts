/**
 * Whether the data dir can take a recording: a write is answered only once its change is recorded, so a write the
 * data dir cannot record is refused before its source takes it (507 `insufficient_storage`).
 *
 * The check before a write is the free space of the data dir's file system (statfs) against a margin (config.ts's
 * minFreeBytes, SHEETPORT_MIN_FREE_MB; docs/api.md, "When the disk is full"): SQLite
 * needs room to grow its WAL, and a full file system fails a transaction only at its commit, too late to keep
 * the source untouched. A quota or a change bigger than the margin can still fail the recording after the check;
 * the Spreadsheet then undoes the write where the source can (see spreadsheets/undo-answer.ts).
 */
import { statfsSync } from 'node:fs';
import { insufficientStorage } from '../lib/storage-failure.ts';

/**
 * Throws 507 unless the data dir's file system has `minBytes` free for this process (statfs `bavail`: what an
 * unprivileged user may still use). A file system that cannot say (statfs fails) is let through: the recording
 * itself still decides.
 */
export function assertRoomToRecord(dataDir: string, minBytes: number): void {
  if (minBytes <= 0) return;
  let free: number;
  try {
    const st = statfsSync(dataDir);
    free = Number(st.bavail) * Number(st.bsize);
  } catch {
    return;
  }
  if (free < minBytes) throw insufficientStorage();
}

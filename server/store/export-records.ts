/**
 * `sheetport export`'s reading side: every record of a data dir's SQLite database in the export format
 * (repositories/rules/export-format.ts), webhook secrets opened with the data dir's data key.
 */
import type Database from 'better-sqlite3';
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportedKey,
  type RecordsExport,
} from '../repositories/rules/export-format.ts';
import { conditionOf } from '../repositories/rules/webhooks.ts';
import { sealContext } from '../secrets/at-rest.ts';
import { secretsOf } from '../secrets/db-binding.ts';

export function exportRecords(db: Database.Database, now: Date = new Date()): RecordsExport {
  const { box } = secretsOf(db);
  const connections = db
    .prepare<[], { public_read: number } & Record<string, unknown>>(
      `SELECT id, user_key, name, source_kind, location, public_read, created_at
       FROM connections ORDER BY created_at, rowid`,
    )
    .all()
    .map((c) => ({ ...c, public_read: c.public_read === 1 })) as RecordsExport['connections'];
  const allowed = db
    .prepare<[], { api_key_id: string; spreadsheet_id: string }>(
      'SELECT api_key_id, spreadsheet_id FROM api_key_connections ORDER BY api_key_id, spreadsheet_id',
    )
    .all();
  const keys = db
    .prepare<[], Omit<ExportedKey, 'allow_formulas' | 'connections'> & { allow_formulas: number }>(
      `SELECT id, key_hash, prefix, name, scope, plan, per_second, daily, allow_formulas, created_at, last_used_at,
              revoked_at
       FROM api_keys ORDER BY created_at, rowid`,
    )
    .all()
    .map((k) => ({
      ...k,
      allow_formulas: k.allow_formulas === 1,
      connections: allowed.filter((a) => a.api_key_id === k.id).map((a) => a.spreadsheet_id),
    }));
  const webhooks = db
    .prepare<
      [],
      { id: string; events: string; condition: string | null; secret: string } & Record<string, unknown>
    >(
      `SELECT id, url, spreadsheet_id, sheet_name, source_sheet_id, events, condition, status, api_key_id,
              created_at, updated_at, last_timestamp_ms, secret
       FROM webhooks ORDER BY created_at, rowid`,
    )
    .all()
    .map((w) => ({
      ...w,
      events: JSON.parse(w.events) as string[],
      condition: conditionOf(w.condition),
      secret: box.open(w.secret, sealContext.webhookSecret(w.id)),
    })) as RecordsExport['webhooks'];
  const usage = db
    .prepare(
      `SELECT subject, day, requests, refused_per_second, refused_daily FROM usage_daily ORDER BY subject, day`,
    )
    .all() as RecordsExport['usage'];
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: now.toISOString(),
    connections,
    keys,
    webhooks,
    usage,
  };
}

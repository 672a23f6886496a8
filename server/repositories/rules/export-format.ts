/**
 * The file `sheetport export` writes and `sheetport import` reads: a data dir's records as stored, so a team's
 * database takes them over unchanged (the same ids, key hashes, plans and allow-lists, connections, webhooks with
 * their signing secrets, usage per day). Webhook secrets are in clear here, re-sealed with the importing store's
 * key: the file is 0600 and meant to be deleted once imported. Pure: the checks of a file read back.
 */
import { AppError } from '../../errors.ts';
import type { WebhookCondition } from '../webhooks.ts';

export const EXPORT_FORMAT = 'sheetport-records';
export const EXPORT_VERSION = 1;

export interface ExportedConnection {
  id: string;
  user_key: string;
  name: string;
  source_kind: string;
  location: string;
  public_read: boolean;
  created_at: string;
}

export interface ExportedKey {
  id: string;
  key_hash: string;
  prefix: string;
  name: string;
  scope: string;
  plan: string;
  per_second: number | null;
  daily: number | null;
  allow_formulas: boolean;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  connections: string[];
}

export interface ExportedWebhook {
  id: string;
  url: string;
  spreadsheet_id: string;
  sheet_name: string;
  source_sheet_id: string;
  events: string[];
  /** Absent in exports made before webhook conditions. */
  condition?: WebhookCondition | null;
  status: string;
  api_key_id: string | null;
  created_at: string;
  updated_at: string;
  last_timestamp_ms: number;
  /** In clear. */
  secret: string;
}

export interface ExportedUsage {
  subject: string;
  day: string;
  requests: number;
  refused_per_second: number;
  refused_daily: number;
}

export interface RecordsExport {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  exported_at: string;
  connections: ExportedConnection[];
  keys: ExportedKey[];
  webhooks: ExportedWebhook[];
  usage: ExportedUsage[];
}

/** The export in `text`, checked for its format and lists; a clear `invalid_parameter` otherwise. */
export function parseRecordsExport(text: string, where: string): RecordsExport {
  let parsed: Partial<RecordsExport>;
  try {
    parsed = JSON.parse(text) as Partial<RecordsExport>;
  } catch {
    throw new AppError('invalid_parameter', `${where} is not JSON: not a file \`sheetport export\` wrote.`);
  }
  if (parsed?.format !== EXPORT_FORMAT) {
    throw new AppError('invalid_parameter', `${where} is not a file \`sheetport export\` wrote.`);
  }
  if (parsed.version !== EXPORT_VERSION) {
    throw new AppError(
      'invalid_parameter',
      `${where} is in export format ${String(parsed.version)}; this SheetPort reads format ${EXPORT_VERSION}.`,
    );
  }
  for (const list of ['connections', 'keys', 'webhooks', 'usage'] as const) {
    if (!Array.isArray(parsed[list])) {
      throw new AppError('invalid_parameter', `${where} has no "${list}" list: the file is damaged.`);
    }
  }
  return parsed as RecordsExport;
}

/**
 * A webhook's condition (where, columns), as JSON text; NULL: every changed row is notified (SQLite's
 * migration 12).
 */
import type { PgMigration } from './pg-migration.ts';

export const WEBHOOK_CONDITIONS_MIGRATION: PgMigration = {
  version: 4,
  name: 'webhook-conditions',
  sql: 'ALTER TABLE webhooks ADD COLUMN condition TEXT;',
};

/**
 * Team mode's migrations, in order (migrate.ts applies them). Rules as for SQLite's (store/migrations.ts):
 * versions 1, 2, 3, ... with no gaps, and a migration that has shipped is never edited: a change is a new one.
 * Each family of tables has its file under migrations/.
 */
import { RECORDS_MIGRATION } from './migrations/0001-records.ts';
import { CHANGES_MIGRATION } from './migrations/0002-changes.ts';
import { TEAM_MIGRATION } from './migrations/0003-team.ts';
import { WEBHOOK_CONDITIONS_MIGRATION } from './migrations/0004-webhook-conditions.ts';
import { CHECKPOINT_PARTS_MIGRATION } from './migrations/0005-checkpoint-parts.ts';
import type { PgMigration } from './migrations/pg-migration.ts';

export type { PgMigration } from './migrations/pg-migration.ts';

export const MIGRATIONS: readonly PgMigration[] = [
  RECORDS_MIGRATION,
  CHANGES_MIGRATION,
  TEAM_MIGRATION,
  WEBHOOK_CONDITIONS_MIGRATION,
  CHECKPOINT_PARTS_MIGRATION,
];

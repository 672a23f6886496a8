/**
 * A checkpoint's content in parts of up to 1 MB, written one at a time before the recording's transaction, which
 * only points its tab at them; a checkpoint replaced or removed takes its parts along (SQLite's migration 13).
 */
import type { PgMigration } from './pg-migration.ts';

export const CHECKPOINT_PARTS_MIGRATION: PgMigration = {
  version: 5,
  name: 'checkpoint-parts',
  sql: `
    CREATE TABLE checkpoint_parts (
      checkpoint_id    TEXT NOT NULL,
      part             INTEGER NOT NULL,
      content          BYTEA NOT NULL,
      created_at       BIGINT NOT NULL,
      PRIMARY KEY (checkpoint_id, part)
    );
    INSERT INTO checkpoint_parts (checkpoint_id, part, content, created_at)
      SELECT 'm~' || spreadsheet_id || '~' || source_sheet_id, 0, content, 0 FROM tab_checkpoints;
    ALTER TABLE tab_checkpoints ADD COLUMN checkpoint_id TEXT;
    UPDATE tab_checkpoints SET checkpoint_id = 'm~' || spreadsheet_id || '~' || source_sheet_id;
    ALTER TABLE tab_checkpoints ALTER COLUMN checkpoint_id SET NOT NULL;
    ALTER TABLE tab_checkpoints DROP COLUMN content;

    CREATE FUNCTION sheetport_checkpoint_gone() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      DELETE FROM checkpoint_parts WHERE checkpoint_id = OLD.checkpoint_id;
      RETURN OLD;
    END $fn$;
    CREATE TRIGGER checkpoint_replaced AFTER UPDATE OF checkpoint_id ON tab_checkpoints
      FOR EACH ROW WHEN (OLD.checkpoint_id IS DISTINCT FROM NEW.checkpoint_id)
      EXECUTE FUNCTION sheetport_checkpoint_gone();
    CREATE TRIGGER checkpoint_removed AFTER DELETE ON tab_checkpoints
      FOR EACH ROW EXECUTE FUNCTION sheetport_checkpoint_gone();
  `,
};

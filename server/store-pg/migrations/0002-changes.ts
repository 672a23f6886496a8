/**
 * Team mode's change tables: the outbox (deliveries and their attempts), the change log and the baselines, as
 * SQLite's migrations 3 to 11 left them (store/migrations.ts), in PostgreSQL's types. Times are BIGINT epoch ms;
 * JSON the service sends or shows in order (a row's values, a payload, an attempt's headers) stays TEXT, since
 * JSONB would reorder its keys. The tables of migration 1 (webhooks, connections) are named by plain columns
 * only: triggers carry SQLite's cascades (a webhook removed takes its deliveries, a connection removed takes
 * what was recorded of its spreadsheet).
 */
import type { PgMigration } from './pg-migration.ts';

export const CHANGES_MIGRATION: PgMigration = {
  version: 2,
  name: 'changes',
  sql: `
    -- The transactional outbox: one row per notification and webhook, inserted by the transaction that records
    -- the change. seq is the insertion order (SQLite's rowid) for pages and the log's fingerprint.
    CREATE TABLE deliveries (
      id               TEXT PRIMARY KEY,
      seq              BIGSERIAL NOT NULL UNIQUE,
      webhook_id       TEXT NOT NULL,
      event            TEXT NOT NULL,
      payload          TEXT NOT NULL,
      state            TEXT NOT NULL CHECK (state IN ('pending', 'in_flight', 'succeeded', 'failed')),
      attempts         INTEGER NOT NULL DEFAULT 0,
      next_attempt_at  BIGINT,
      lease_until      BIGINT,
      replay           BOOLEAN NOT NULL DEFAULT false,
      created_at       BIGINT NOT NULL,
      completed_at     BIGINT
    );
    CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at);
    CREATE INDEX deliveries_lease ON deliveries (lease_until) WHERE state = 'in_flight';
    CREATE INDEX deliveries_log ON deliveries (webhook_id, created_at DESC, seq DESC);
    CREATE INDEX deliveries_created ON deliveries (created_at DESC, seq DESC);

    -- Every attempt of every delivery, for the delivery log.
    CREATE TABLE delivery_attempts (
      delivery_id       TEXT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
      attempt           INTEGER NOT NULL,
      trigger           TEXT NOT NULL CHECK (trigger IN ('auto', 'replay')),
      started_at        BIGINT NOT NULL,
      duration_ms       BIGINT NOT NULL,
      status            INTEGER,
      error             TEXT,
      response_excerpt  TEXT,
      target_address    TEXT,
      target_kind       TEXT,
      request_headers   TEXT,
      PRIMARY KEY (delivery_id, attempt)
    );

    -- The change feed behind updated_since: one row per changed row, oldest first by seq (appended under one
    -- lock, so seq grows in commit order: a reader of the log's end never skips an entry committed later).
    CREATE TABLE change_log (
      seq              BIGSERIAL PRIMARY KEY,
      spreadsheet_id   TEXT NOT NULL,
      source_sheet_id  TEXT NOT NULL,
      row_index        INTEGER NOT NULL,
      change           TEXT NOT NULL CHECK (change IN ('inserted', 'updated', 'deleted')),
      updated_at       BIGINT NOT NULL,
      row_values       TEXT
    );
    CREATE INDEX change_log_feed ON change_log (spreadsheet_id, source_sheet_id, updated_at, seq);

    -- A baseline per tab (repositories/rules/baseline-format.ts): counters every recording updates, the checkpoint's
    -- content apart, and the row edits recorded after the checkpoint.
    CREATE TABLE tab_baselines (
      spreadsheet_id   TEXT NOT NULL,
      source_sheet_id  TEXT NOT NULL,
      name             TEXT NOT NULL,
      updated_at       BIGINT NOT NULL,
      source_version   TEXT,
      redo_entries     INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (spreadsheet_id, source_sheet_id)
    );
    CREATE TABLE tab_checkpoints (
      spreadsheet_id   TEXT NOT NULL,
      source_sheet_id  TEXT NOT NULL,
      content          BYTEA NOT NULL,
      PRIMARY KEY (spreadsheet_id, source_sheet_id),
      FOREIGN KEY (spreadsheet_id, source_sheet_id)
        REFERENCES tab_baselines (spreadsheet_id, source_sheet_id) ON DELETE CASCADE
    );
    CREATE TABLE baseline_redo (
      seq              BIGSERIAL PRIMARY KEY,
      spreadsheet_id   TEXT NOT NULL,
      source_sheet_id  TEXT NOT NULL,
      content          BYTEA NOT NULL,
      FOREIGN KEY (spreadsheet_id, source_sheet_id)
        REFERENCES tab_baselines (spreadsheet_id, source_sheet_id) ON DELETE CASCADE
    );
    CREATE INDEX baseline_redo_tab ON baseline_redo (spreadsheet_id, source_sheet_id, seq);

    -- The source version each spreadsheet was last recorded at, and its recording's generation (from one
    -- sequence, never reused, also after a connection is removed and made again): an instance whose in-memory
    -- content is of another generation than the stored one compares with the stored baselines instead.
    CREATE SEQUENCE recording_generations;
    CREATE TABLE recorded_versions (
      spreadsheet_id  TEXT PRIMARY KEY,
      version         TEXT NOT NULL,
      generation      BIGINT NOT NULL
    );

    -- SQLite's cascades, as triggers on migration 1's tables (named by their id columns only).
    CREATE FUNCTION sheetport_webhook_removed() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      DELETE FROM deliveries WHERE webhook_id = OLD.id;
      RETURN OLD;
    END $fn$;
    CREATE TRIGGER webhook_removed AFTER DELETE ON webhooks
      FOR EACH ROW EXECUTE FUNCTION sheetport_webhook_removed();

    CREATE FUNCTION sheetport_connection_removed() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      DELETE FROM change_log WHERE spreadsheet_id = OLD.id;
      DELETE FROM tab_baselines WHERE spreadsheet_id = OLD.id;
      DELETE FROM recorded_versions WHERE spreadsheet_id = OLD.id;
      RETURN OLD;
    END $fn$;
    CREATE TRIGGER connection_removed AFTER DELETE ON connections
      FOR EACH ROW EXECUTE FUNCTION sheetport_connection_removed();
  `,
};

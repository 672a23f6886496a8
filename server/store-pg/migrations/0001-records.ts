/**
 * Team mode's records: connections, API keys and their allow-lists, idempotency answers, usage per day, webhook
 * registrations and named secrets. The columns mirror SQLite's (store/migrations.ts) so the same values come
 * back: ISO 8601 text where SQLite keeps text, BIGINT epoch ms where it keeps integers. `seq` stands in for
 * SQLite's rowid, the tie-break of "in creation order".
 */
import type { PgMigration } from './pg-migration.ts';

export const RECORDS_MIGRATION: PgMigration = {
  version: 1,
  name: 'records',
  sql: `
    -- One row per registered spreadsheet. id is the public spreadsheet_id.
    CREATE TABLE connections (
      id           TEXT PRIMARY KEY,
      user_key     TEXT NOT NULL UNIQUE,
      name         TEXT NOT NULL,
      source_kind  TEXT NOT NULL CHECK (source_kind IN ('workbook', 'google')),
      location     TEXT NOT NULL,
      public_read  BOOLEAN NOT NULL DEFAULT false,
      created_at   TEXT NOT NULL,
      seq          BIGINT GENERATED ALWAYS AS IDENTITY
    );
    -- Registering the same spreadsheet twice returns the existing connection.
    CREATE UNIQUE INDEX connections_source_location ON connections (source_kind, location);

    -- API keys. Only the sha256 of the key is stored (store/api-keys.ts says why a fast hash).
    CREATE TABLE api_keys (
      id              TEXT PRIMARY KEY,
      key_hash        TEXT NOT NULL UNIQUE,
      prefix          TEXT NOT NULL,
      name            TEXT NOT NULL,
      scope           TEXT NOT NULL CHECK (scope IN ('read', 'read_write')),
      plan            TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'enterprise')),
      per_second      BIGINT,
      daily           BIGINT,
      allow_formulas  BOOLEAN NOT NULL DEFAULT false,
      created_at      TEXT NOT NULL,
      last_used_at    TEXT,
      revoked_at      TEXT,
      seq             BIGINT GENERATED ALWAYS AS IDENTITY
    );

    -- Spreadsheets a key is limited to; no rows = all spreadsheets. No foreign key to connections, on purpose:
    -- removing a connection must not widen a key limited to it to "all spreadsheets".
    CREATE TABLE api_key_connections (
      api_key_id      TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
      spreadsheet_id  TEXT NOT NULL,
      PRIMARY KEY (api_key_id, spreadsheet_id)
    );

    -- Idempotency-Key records, scoped per API key; body sealed with the team's key. created_at: epoch ms.
    CREATE TABLE idempotency_keys (
      api_key_id    TEXT NOT NULL,
      idem_key      TEXT NOT NULL,
      fingerprint   TEXT NOT NULL,
      state         TEXT NOT NULL CHECK (state IN ('pending', 'done')),
      status        INTEGER,
      content_type  TEXT,
      body          TEXT,
      created_at    BIGINT NOT NULL,
      PRIMARY KEY (api_key_id, idem_key)
    );
    CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

    -- Requests per rate-limit subject and UTC day ('YYYY-MM-DD'); every instance adds its flushed counts.
    CREATE TABLE usage_daily (
      subject             TEXT NOT NULL,
      day                 TEXT NOT NULL,
      requests            BIGINT NOT NULL DEFAULT 0,
      refused_per_second  BIGINT NOT NULL DEFAULT 0,
      refused_daily       BIGINT NOT NULL DEFAULT 0,
      PRIMARY KEY (subject, day)
    );
    CREATE INDEX usage_daily_day ON usage_daily (day);

    -- Webhook registrations (events: a JSON array as text, as in SQLite); secret sealed with the team's key.
    -- last_timestamp_ms keeps payload timestamps unique per webhook (the change recording bumps it).
    CREATE TABLE webhooks (
      id                 TEXT PRIMARY KEY,
      url                TEXT NOT NULL,
      spreadsheet_id     TEXT NOT NULL,
      sheet_name         TEXT NOT NULL,
      source_sheet_id    TEXT NOT NULL,
      events             TEXT NOT NULL,
      secret             TEXT NOT NULL,
      status             TEXT NOT NULL CHECK (status IN ('active', 'paused')),
      api_key_id         TEXT,
      created_at         TEXT NOT NULL,
      updated_at         TEXT NOT NULL,
      last_timestamp_ms  BIGINT NOT NULL DEFAULT 0,
      seq                BIGINT GENERATED ALWAYS AS IDENTITY
    );
    CREATE INDEX webhooks_target ON webhooks (spreadsheet_id, source_sheet_id);

    -- Named secrets (account tokens, the tunnel's authtoken), each value sealed with the team's key.
    CREATE TABLE secrets (
      name        TEXT PRIMARY KEY,
      value       TEXT NOT NULL,
      updated_at  BIGINT NOT NULL
    );
  `,
};

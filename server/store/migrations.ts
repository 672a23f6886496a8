/**
 * Schema migrations, applied in order by `openDatabase` and tracked with `PRAGMA user_version`.
 *
 * Rules: versions are 1, 2, 3, ... with no gaps. NEVER edit a migration that has shipped (databases in the
 * wild already ran it); change the schema by appending a new one.
 */
import type Database from 'better-sqlite3';
import type { SecretBox } from '../secrets/at-rest.ts';
import { convertBaselinesToFormat1 } from './baselines-before-format-1.ts';
import { sealPlaintext } from './seal-at-rest.ts';
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Work SQL alone cannot do (it needs the data key), run after `sql` in the same transaction. */
  up?: (db: Database.Database, env: MigrationEnv) => void;
}

export interface MigrationEnv {
  /** The data key; absent only where a bare database is migrated (tests), which then must hold no secrets. */
  box?: SecretBox;
  /** Set by a migration that rewrote secret values: the caller then scrubs the old pages (VACUUM). */
  rewroteSecrets?: boolean;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial',
    sql: `
      -- One row per registered spreadsheet. id is the public spreadsheet_id.
      CREATE TABLE connections (
        id           TEXT PRIMARY KEY,
        user_key     TEXT NOT NULL UNIQUE,
        name         TEXT NOT NULL,
        source_kind  TEXT NOT NULL CHECK (source_kind IN ('workbook', 'google')),
        location     TEXT NOT NULL,
        public_read  INTEGER NOT NULL DEFAULT 0 CHECK (public_read IN (0, 1)),
        created_at   TEXT NOT NULL
      );
      -- Registering the same file twice returns the existing connection.
      CREATE UNIQUE INDEX connections_source_location ON connections (source_kind, location);

      -- API keys. Only the sha256 of the key is stored (see api-keys.ts).
      CREATE TABLE api_keys (
        id              TEXT PRIMARY KEY,
        key_hash        TEXT NOT NULL UNIQUE,
        prefix          TEXT NOT NULL,
        name            TEXT NOT NULL,
        scope           TEXT NOT NULL CHECK (scope IN ('read', 'read_write')),
        plan            TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'enterprise')),
        per_second      INTEGER,
        daily           INTEGER,
        allow_formulas  INTEGER NOT NULL DEFAULT 0 CHECK (allow_formulas IN (0, 1)),
        created_at      TEXT NOT NULL,
        last_used_at    TEXT,
        revoked_at      TEXT
      );

      -- Spreadsheets a key is limited to; no rows = all spreadsheets.
      -- Deliberately no foreign key to connections: removing a connection must not delete these rows, or a
      -- key limited to that one spreadsheet would silently widen to "all spreadsheets".
      CREATE TABLE api_key_connections (
        api_key_id      TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
        spreadsheet_id  TEXT NOT NULL,
        PRIMARY KEY (api_key_id, spreadsheet_id)
      ) WITHOUT ROWID;

      -- Idempotency-Key records, scoped per API key. created_at is epoch milliseconds.
      CREATE TABLE idempotency_keys (
        api_key_id    TEXT NOT NULL,
        idem_key      TEXT NOT NULL,
        fingerprint   TEXT NOT NULL,
        state         TEXT NOT NULL CHECK (state IN ('pending', 'done')),
        status        INTEGER,
        content_type  TEXT,
        body          TEXT,
        created_at    INTEGER NOT NULL,
        PRIMARY KEY (api_key_id, idem_key)
      ) WITHOUT ROWID;
      CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
    `,
  },
  {
    version: 2,
    name: 'usage',
    sql: `
      -- Requests per rate-limit subject (an API key id, or 'ip:<address>' for public reads) per UTC day.
      -- Written in batches about once a second (see usage.ts); counts add up across processes.
      CREATE TABLE usage_daily (
        subject             TEXT NOT NULL,
        day                 TEXT NOT NULL,
        requests            INTEGER NOT NULL DEFAULT 0,
        refused_per_second  INTEGER NOT NULL DEFAULT 0,
        refused_daily       INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (subject, day)
      ) WITHOUT ROWID;
      CREATE INDEX usage_daily_day ON usage_daily (day);
    `,
  },
  {
    version: 3,
    name: 'webhooks',
    sql: `
      -- Webhook registrations. The tab is held by its stable source_sheet_id (sheet_name is the name given at
      -- registration), so renaming the tab keeps the webhook. The secret must be usable to sign every delivery,
      -- so it is kept (never shown again after creation or rotation). last_timestamp_ms keeps payload
      -- timestamps unique per webhook.
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
        last_timestamp_ms  INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX webhooks_target ON webhooks (spreadsheet_id, source_sheet_id);

      -- The transactional outbox: one row per notification, inserted in the same transaction that records the
      -- change. payload is the exact body sent (signed as is). Times are epoch milliseconds.
      CREATE TABLE deliveries (
        id               TEXT PRIMARY KEY,
        webhook_id       TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        event            TEXT NOT NULL,
        payload          TEXT NOT NULL,
        state            TEXT NOT NULL CHECK (state IN ('pending', 'in_flight', 'succeeded', 'failed')),
        attempts         INTEGER NOT NULL DEFAULT 0,
        next_attempt_at  INTEGER,
        lease_until      INTEGER,
        replay           INTEGER NOT NULL DEFAULT 0 CHECK (replay IN (0, 1)),
        created_at       INTEGER NOT NULL,
        completed_at     INTEGER
      );
      CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at);
      CREATE INDEX deliveries_log ON deliveries (webhook_id, created_at DESC);

      -- Every attempt of every delivery, for the delivery log.
      CREATE TABLE delivery_attempts (
        delivery_id       TEXT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
        attempt           INTEGER NOT NULL,
        trigger           TEXT NOT NULL CHECK (trigger IN ('auto', 'replay')),
        started_at        INTEGER NOT NULL,
        duration_ms       INTEGER NOT NULL,
        status            INTEGER,
        error             TEXT,
        response_excerpt  TEXT,
        PRIMARY KEY (delivery_id, attempt)
      ) WITHOUT ROWID;

      -- The change feed behind updated_since: one row per changed row, oldest first by seq.
      CREATE TABLE change_log (
        seq              INTEGER PRIMARY KEY AUTOINCREMENT,
        spreadsheet_id   TEXT NOT NULL,
        source_sheet_id  TEXT NOT NULL,
        row_index        INTEGER NOT NULL,
        change           TEXT NOT NULL CHECK (change IN ('inserted', 'updated', 'deleted')),
        updated_at       INTEGER NOT NULL,
        row_values       TEXT
      );
      CREATE INDEX change_log_feed ON change_log (spreadsheet_id, source_sheet_id, updated_at, seq);

      -- The last content of each tab the service has seen (gzip JSON), so changes made while it was not
      -- running are noticed on the next start.
      CREATE TABLE tab_baselines (
        spreadsheet_id   TEXT NOT NULL,
        source_sheet_id  TEXT NOT NULL,
        name             TEXT NOT NULL,
        content          BLOB NOT NULL,
        updated_at       INTEGER NOT NULL,
        PRIMARY KEY (spreadsheet_id, source_sheet_id)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 4,
    name: 'secrets-at-rest',
    sql: `
      -- From here on webhooks.secret and idempotency_keys.body hold values sealed with the data key
      -- (AES-256-GCM, 'sp1:' prefix; see secrets/at-rest.ts). The key lives in the secrets provider, not here.
      -- This version also stops an older SheetPort from opening the file and writing plaintext again.
    `,
    up(db, env) {
      const hasRows =
        db.prepare('SELECT 1 FROM webhooks LIMIT 1').get() !== undefined ||
        db.prepare('SELECT 1 FROM idempotency_keys WHERE body IS NOT NULL LIMIT 1').get() !== undefined;
      if (!hasRows) return;
      if (!env.box) throw new Error('secrets to encrypt, but no data key was given');
      if (sealPlaintext(db, env.box) > 0) env.rewroteSecrets = true;
    },
  },
  {
    version: 5,
    name: 'attempt-targets',
    sql: `
      -- Where each delivery attempt went, recorded when it was made: the IP address connected to (or tried,
      -- or refused by the target policy; NULL when none was resolved) and its class ('public', 'private',
      -- 'loopback', 'link_local', 'forbidden', or 'none' when no address was reached). The API hides the
      -- response excerpt and detailed errors of attempts at non-public addresses; rows from before this
      -- version have no class and are treated as non-public.
      ALTER TABLE delivery_attempts ADD COLUMN target_address TEXT;
      ALTER TABLE delivery_attempts ADD COLUMN target_kind TEXT;
    `,
  },
  {
    version: 6,
    name: 'csv-tab-id-1',
    sql: `
      -- A .csv file's one tab had id 0 while an .xlsx file's first tab has 1; both now number from 1, so
      -- a sheet_id reads the same for either kind. Move what was recorded under the old id.
      UPDATE webhooks SET source_sheet_id = '1' WHERE source_sheet_id = '0'
        AND spreadsheet_id IN (SELECT id FROM connections WHERE lower(location) LIKE '%.csv');
      UPDATE change_log SET source_sheet_id = '1' WHERE source_sheet_id = '0'
        AND spreadsheet_id IN (SELECT id FROM connections WHERE lower(location) LIKE '%.csv');
      UPDATE tab_baselines SET source_sheet_id = '1' WHERE source_sheet_id = '0'
        AND spreadsheet_id IN (SELECT id FROM connections WHERE lower(location) LIKE '%.csv');
    `,
  },
  {
    version: 7,
    name: 'baseline-source-version',
    sql: `
      -- The source version (a file's mtime/size/inode, a revision) each baseline was read from. On the first
      -- look after a start, the same version means the same content: a different read of it (an engine
      -- upgrade, newly computed formula results) updates the baseline without notifications. NULL for
      -- baselines recorded before this version: those are compared as before.
      ALTER TABLE tab_baselines ADD COLUMN source_version TEXT;
    `,
  },
  {
    version: 8,
    name: 'baseline-checkpoints',
    sql: `
      -- A baseline is now a checkpoint plus the change log recorded after it: a write records only its changed
      -- rows, and the whole tab is stored again only now and then. checkpoint_at is the instant (change_log
      -- updated_at) the checkpoint's content includes; redo_entries counts the entries recorded after it.
      -- Baselines stored before this version hold everything recorded so far.
      ALTER TABLE tab_baselines ADD COLUMN checkpoint_at INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE tab_baselines ADD COLUMN redo_entries INTEGER NOT NULL DEFAULT 0;
      UPDATE tab_baselines SET checkpoint_at = COALESCE((
        SELECT MAX(c.updated_at) FROM change_log c
        WHERE c.spreadsheet_id = tab_baselines.spreadsheet_id AND c.source_sheet_id = tab_baselines.source_sheet_id
      ), 0);
    `,
  },
  {
    version: 9,
    name: 'checkpoint-content-apart',
    sql: `
      -- A checkpoint's content (a whole tab) moves to a table of its own. Every write updates its tab's
      -- redo_entries and source_version, and SQLite rewrites a whole record on any update: with the content in
      -- the same record, each write copied the whole tab's checkpoint again (and reading source_version walked
      -- it). The content is written only when a checkpoint is taken now.
      CREATE TABLE tab_checkpoints (
        spreadsheet_id   TEXT NOT NULL,
        source_sheet_id  TEXT NOT NULL,
        content          BLOB NOT NULL,
        UNIQUE (spreadsheet_id, source_sheet_id)
      );
      INSERT INTO tab_checkpoints (spreadsheet_id, source_sheet_id, content)
        SELECT spreadsheet_id, source_sheet_id, content FROM tab_baselines;
      ALTER TABLE tab_baselines DROP COLUMN content;
    `,
  },
  {
    version: 10,
    name: 'attempt-request-headers',
    sql: `
      -- The headers each attempt sent (JSON: content type, user agent, event, delivery id, timestamp and both
      -- signatures), so the dashboard and the CLI show what the receiver got. NULL for older attempts.
      ALTER TABLE delivery_attempts ADD COLUMN request_headers TEXT;
    `,
  },
  {
    version: 11,
    name: 'baseline-format-1',
    sql: `
      -- Baselines get a stored format of their own (repositories/rules/baseline-format.ts, format 1), no longer the change
      -- feed's JSON: a checkpoint in that format plus the row edits recorded after it, one row per recorded
      -- change (baseline_redo, dropped with its baseline). Checkpoints stored before are converted by up();
      -- one that cannot be read is dropped, and its tab's next look is a first sight.
      CREATE TABLE baseline_redo (
        seq              INTEGER PRIMARY KEY AUTOINCREMENT,
        spreadsheet_id   TEXT NOT NULL,
        source_sheet_id  TEXT NOT NULL,
        content          BLOB NOT NULL,
        FOREIGN KEY (spreadsheet_id, source_sheet_id)
          REFERENCES tab_baselines (spreadsheet_id, source_sheet_id) ON DELETE CASCADE
      );
      CREATE INDEX baseline_redo_tab ON baseline_redo (spreadsheet_id, source_sheet_id, seq);
    `,
    up(db) {
      convertBaselinesToFormat1(db);
      // The checkpoint no longer points into the change log.
      db.exec('ALTER TABLE tab_baselines DROP COLUMN checkpoint_at');
    },
  },
  {
    version: 12,
    name: 'webhook-conditions',
    sql: `
      -- A webhook's condition (where, columns), as JSON text; NULL: every changed row is notified.
      ALTER TABLE webhooks ADD COLUMN condition TEXT;
    `,
  },
  {
    version: 13,
    name: 'checkpoint-parts',
    sql: `
      -- A checkpoint's content is stored in parts of up to 1 MB (checkpoint_parts), written one at a time before
      -- the recording's transaction, which only points its tab at them (tab_checkpoints.checkpoint_id): one
      -- statement writing a million rows' checkpoint (tens of MB) held the service for a quarter of a second.
      -- A checkpoint replaced or removed takes its parts along (the triggers).
      CREATE TABLE checkpoint_parts (
        checkpoint_id    TEXT NOT NULL,
        part             INTEGER NOT NULL,
        content          BLOB NOT NULL,
        created_at       INTEGER NOT NULL,
        PRIMARY KEY (checkpoint_id, part)
      );
      INSERT INTO checkpoint_parts (checkpoint_id, part, content, created_at)
        SELECT 'm~' || spreadsheet_id || '~' || source_sheet_id, 0, content, 0 FROM tab_checkpoints;
      CREATE TABLE tab_checkpoints_parted (
        spreadsheet_id   TEXT NOT NULL,
        source_sheet_id  TEXT NOT NULL,
        checkpoint_id    TEXT NOT NULL,
        UNIQUE (spreadsheet_id, source_sheet_id)
      );
      INSERT INTO tab_checkpoints_parted (spreadsheet_id, source_sheet_id, checkpoint_id)
        SELECT spreadsheet_id, source_sheet_id, 'm~' || spreadsheet_id || '~' || source_sheet_id FROM tab_checkpoints;
      DROP TABLE tab_checkpoints;
      ALTER TABLE tab_checkpoints_parted RENAME TO tab_checkpoints;
      CREATE TRIGGER checkpoint_replaced AFTER UPDATE OF checkpoint_id ON tab_checkpoints
        WHEN OLD.checkpoint_id IS NOT NEW.checkpoint_id
      BEGIN
        DELETE FROM checkpoint_parts WHERE checkpoint_id = OLD.checkpoint_id;
      END;
      CREATE TRIGGER checkpoint_removed AFTER DELETE ON tab_checkpoints
      BEGIN
        DELETE FROM checkpoint_parts WHERE checkpoint_id = OLD.checkpoint_id;
      END;
    `,
  },
];

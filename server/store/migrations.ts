/**
 * Schema migrations, applied in order by `openDatabase` and tracked with `PRAGMA user_version`.
 *
 * Rules: versions are 1, 2, 3, ... with no gaps. NEVER edit a migration that has shipped (databases in the
 * wild already ran it); change the schema by appending a new one.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
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
];

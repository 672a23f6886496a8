/**
 * Bring a database written by an older SheetPort up to encryption at rest: seal every plaintext webhook secret
 * and stored idempotent answer, then rebuild the file so no page, free or in the WAL, still holds the plaintext.
 */
import type Database from 'better-sqlite3';
import { type SecretBox, sealContext } from '../secrets/at-rest.ts';

/** Seal what is still plaintext; returns how many values were sealed. Run inside a transaction. */
export function sealPlaintext(db: Database.Database, box: SecretBox): number {
  let sealed = 0;
  const secrets = db
    .prepare<[], { id: string; secret: string }>(
      "SELECT id, secret FROM webhooks WHERE secret NOT LIKE 'sp1:%'",
    )
    .all();
  const setSecret = db.prepare<[string, string]>('UPDATE webhooks SET secret = ? WHERE id = ?');
  for (const { id, secret } of secrets) {
    setSecret.run(box.seal(secret, sealContext.webhookSecret(id)), id);
    sealed++;
  }
  const answers = db
    .prepare<[], { api_key_id: string; idem_key: string; body: string }>(
      "SELECT api_key_id, idem_key, body FROM idempotency_keys WHERE body IS NOT NULL AND body NOT LIKE 'sp1:%'",
    )
    .all();
  const setBody = db.prepare<[string, string, string]>(
    'UPDATE idempotency_keys SET body = ? WHERE api_key_id = ? AND idem_key = ?',
  );
  for (const a of answers) {
    setBody.run(
      box.seal(a.body, sealContext.idempotentAnswer(a.api_key_id, a.idem_key)),
      a.api_key_id,
      a.idem_key,
    );
    sealed++;
  }
  return sealed;
}

/** True when some value is still plaintext (cheap: stops at the first). */
export function hasPlaintext(db: Database.Database): boolean {
  return (
    db.prepare("SELECT 1 FROM webhooks WHERE secret NOT LIKE 'sp1:%' LIMIT 1").get() !== undefined ||
    db
      .prepare("SELECT 1 FROM idempotency_keys WHERE body IS NOT NULL AND body NOT LIKE 'sp1:%' LIMIT 1")
      .get() !== undefined
  );
}

/**
 * Rewrite the whole file (VACUUM builds it afresh, so old cells and free pages are gone) and empty the WAL
 * (TRUNCATE checkpoint), where the old pages may also sit. VACUUM's scratch copy stays in memory, not in a
 * temp file. Returns false when another connection's read kept the WAL from being emptied.
 */
export function scrubFreedPages(db: Database.Database): boolean {
  db.pragma('temp_store = MEMORY');
  db.exec('VACUUM');
  const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
  return result?.busy === 0;
}

/** Whether some value is sealed already (with whatever key): a missing data key must then not be made anew. */
export function hasSealedValues(db: Database.Database): boolean {
  const exists = (table: string) =>
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
  return (
    (exists('webhooks') &&
      db.prepare("SELECT 1 FROM webhooks WHERE secret LIKE 'sp1:%' LIMIT 1").get() !== undefined) ||
    (exists('idempotency_keys') &&
      db.prepare("SELECT 1 FROM idempotency_keys WHERE body LIKE 'sp1:%' LIMIT 1").get() !== undefined)
  );
}

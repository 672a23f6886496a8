/**
 * `sheetport import`'s writing side for team mode: the records of an export (repositories/rules/export-format.ts) into the
 * team's database, in one transaction, webhook secrets sealed with the team's key. A record already there (the
 * same id, key hash, location, or usage day) is left as it is, so importing a file twice changes nothing.
 */
import { AppError } from '../errors.ts';
import type { RecordsExport } from '../repositories/rules/export-format.ts';
import { conditionText } from '../repositories/rules/webhooks.ts';
import type { SecretBox } from '../secrets/at-rest.ts';
import { sealContext } from '../secrets/at-rest.ts';
import { CHANNELS } from './channels.ts';
import { type Client, type Pool, tx } from './pool.ts';

type Lists = 'connections' | 'keys' | 'webhooks' | 'usage';
export type ImportCounts = Record<Lists, { added: number; present: number }>;

export async function importRecords(pool: Pool, box: SecretBox, data: RecordsExport): Promise<ImportCounts> {
  const counts = {} as ImportCounts;
  const count = (list: Lists, added: boolean) => {
    counts[list][added ? 'added' : 'present']++;
  };
  for (const list of ['connections', 'keys', 'webhooks', 'usage'] as const)
    counts[list] = { added: 0, present: 0 };
  try {
    await tx(pool, async (client) => {
      for (const c of data.connections) {
        const added = await insert(client, 'connections', [
          ['id', c.id],
          ['user_key', c.user_key],
          ['name', c.name],
          ['source_kind', c.source_kind],
          ['location', c.location],
          ['public_read', c.public_read === true],
          ['created_at', c.created_at],
        ]);
        count('connections', added);
      }
      for (const k of data.keys) {
        const added = await insert(client, 'api_keys', [
          ['id', k.id],
          ['key_hash', k.key_hash],
          ['prefix', k.prefix],
          ['name', k.name],
          ['scope', k.scope],
          ['plan', k.plan],
          ['per_second', k.per_second],
          ['daily', k.daily],
          ['allow_formulas', k.allow_formulas === true],
          ['created_at', k.created_at],
          ['last_used_at', k.last_used_at],
          ['revoked_at', k.revoked_at],
        ]);
        count('keys', added);
        if (!added) continue;
        for (const spreadsheetId of k.connections) {
          await insert(client, 'api_key_connections', [
            ['api_key_id', k.id],
            ['spreadsheet_id', spreadsheetId],
          ]);
        }
      }
      for (const w of data.webhooks) {
        const added = await insert(client, 'webhooks', [
          ['id', w.id],
          ['url', w.url],
          ['spreadsheet_id', w.spreadsheet_id],
          ['sheet_name', w.sheet_name],
          ['source_sheet_id', w.source_sheet_id],
          ['events', JSON.stringify(w.events)],
          ['condition', conditionText(w.condition)],
          ['status', w.status],
          ['api_key_id', w.api_key_id],
          ['created_at', w.created_at],
          ['updated_at', w.updated_at],
          ['last_timestamp_ms', w.last_timestamp_ms],
          ['secret', box.seal(w.secret, sealContext.webhookSecret(w.id))],
        ]);
        count('webhooks', added);
      }
      for (const u of data.usage) {
        const added = await insert(client, 'usage_daily', [
          ['subject', u.subject],
          ['day', u.day],
          ['requests', u.requests],
          ['refused_per_second', u.refused_per_second],
          ['refused_daily', u.refused_daily],
        ]);
        count('usage', added);
      }
      await client.query('SELECT pg_notify($1, $2)', [CHANNELS.registry, '']);
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    // 23xxx: an integrity constraint (a value the schema refuses, such as an unknown plan): nothing was written.
    if (code?.startsWith('23')) {
      throw new AppError(
        'invalid_parameter',
        `The team database refuses a record of the file, so nothing was imported: ${(err as Error).message}`,
      );
    }
    throw err;
  }
  return counts;
}

/**
 * One row, unless a row with the same unique key is there already; whether it was added. Table and column names
 * are this file's constants, never the import file's: only values come from it, as parameters.
 */
async function insert(
  client: Client,
  table: string,
  row: readonly (readonly [string, unknown])[],
): Promise<boolean> {
  const result = await client.query(
    `INSERT INTO ${table} (${row.map(([column]) => column).join(', ')})
     VALUES (${row.map((_, i) => `$${i + 1}`).join(', ')}) ON CONFLICT DO NOTHING`,
    row.map(([, value]) => value),
  );
  return (result.rowCount ?? 0) > 0;
}

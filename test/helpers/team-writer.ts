/**
 * One team-mode instance's writes, as a program of its own (a process with its own module state, as an instance
 * on another machine has): a `Spreadsheets` registry over the given connection's workbook with a PgOwnership on
 * the given database, appending `loops` x `each` rows named `<name>-<loop>-<i>`, `loops` writers at once.
 * Every write turn's critical part marks itself with a file created exclusively beside the workbook, so two
 * instances' turns overlapping are counted. Prints one JSON line: the names acknowledged, the errors, overlaps.
 *
 * Run: node test/helpers/team-writer.ts <database url> <connection json> <name> <loops> <each>
 */
import { closeSync, openSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { openSource } from '../../server/sources/index.ts';
import { Spreadsheets } from '../../server/spreadsheets/spreadsheets.ts';
import { PgOwnership } from '../../server/store-pg/ownership.ts';
import { openPool } from '../../server/store-pg/pool.ts';

const [url, connectionJson, name, loops, each] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const connection = JSON.parse(connectionJson) as ConnectionRecord;
const marker = path.join(path.dirname(connection.location), '.turn-in-progress');
let overlaps = 0;

/** Held for a few ms at two points of each turn: before the file is replaced, and while its change records. */
async function markTurn(): Promise<void> {
  let fd: number;
  try {
    fd = openSync(marker, 'wx');
  } catch {
    overlaps++; // another instance is inside its turn right now
    return;
  }
  await new Promise((r) => setTimeout(r, 5));
  closeSync(fd);
  unlinkSync(marker);
}

const pool = openPool(url);
const ownership = new PgOwnership({ pool, databaseUrl: url, instanceId: name, ttlMs: 5000 });
const spreadsheets = new Spreadsheets({
  openSource: (c) => openSource(c, { beforeFileReplace: markTurn }),
  record: markTurn,
  ownership,
});
const spreadsheet = spreadsheets.of(connection);
const tab = await spreadsheet.tab({ name: 'People' });
const acknowledged: string[] = [];
const errors: string[] = [];
await Promise.all(
  Array.from({ length: Number(loops) }, async (_, loop) => {
    for (let i = 0; i < Number(each); i++) {
      const row = `${name}-${loop}-${i}`;
      try {
        await spreadsheet.write(tab.sourceSheetId, [{ op: 'append', values: { Name: row, Age: i } }], {
          allowFormulas: false,
          userEntered: false,
        });
        acknowledged.push(row);
      } catch (err) {
        errors.push(String((err as Error).message));
      }
    }
  }),
);
await spreadsheets.close();
await ownership.close();
await pool.end();
console.log(JSON.stringify({ acknowledged, errors, overlaps }));

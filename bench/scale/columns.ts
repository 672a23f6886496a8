/**
 * One column of a size's table: a server started on its own copy of the input, measured, stopped, and (for
 * SheetPort) its file read back by an independent reader. SheetPort first runs with its default settings; when
 * it refuses the file, the refusal is the result and the run is repeated with the file limits raised.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EDITED_FIELD, EDITED_VALUE, type ScaleFiles } from './cache.ts';
import { checkFile } from './check-file.ts';
import { onInterrupt } from './children.ts';
import { startJsonServer } from './json-server-run.ts';
import { type Column, measureServer } from './measure.ts';
import type { Kind } from './options.ts';
import { APPEND_MARKER } from './server.ts';
import {
  connectSheetPort,
  Refused,
  type SheetPortSetup,
  sheetportEnv,
  startSheetPort,
} from './sheetport-run.ts';
import { showMs } from './timing.ts';

/** Limits far above any file this benchmark makes, through the variables server/config.ts reads. */
export const RAISED_LIMITS: Record<string, string> = {
  SHEETPORT_MAX_FILE_MB: '4096',
  SHEETPORT_MAX_INFLATED_MB: '16384',
  SHEETPORT_MAX_CELLS: '100000000',
  SHEETPORT_MAX_TEXT_MB: '4000',
  SHEETPORT_PARSE_TIMEOUT_MS: '1800000',
};

function runDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sheetport-scale-run-'));
  onInterrupt(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const thousands = (n: number) => n.toLocaleString('en-US');

async function sheetportOnce(
  kind: Kind,
  rows: number,
  files: ScaleFiles,
  writes: number,
  env: NodeJS.ProcessEnv,
) {
  const dir = runDir();
  try {
    const setup: SheetPortSetup = {
      name: `SheetPort .${kind}`,
      file: path.join(dir, `orders.${kind}`),
      rows,
      dataDir: path.join(dir, 'data'),
      env,
    };
    mkdirSync(setup.dataDir);
    copyFileSync(files.workbook[kind], setup.file);
    const connected = await connectSheetPort(setup);
    const server = await startSheetPort(setup, connected);
    let measured: Awaited<ReturnType<typeof measureServer>>;
    try {
      measured = await measureServer(server, { edited: files.edited[kind], writes });
    } finally {
      await server.stop();
    }
    const { column } = measured;
    column.connect = showMs(connected.connectMs);
    // Its start read the file as `connect` kept it (api.md, "Reads kept for the next start"); the writes have
    // changed it since, so this start parses it, as after any change made while the service was stopped.
    const again = await startSheetPort(setup, connected);
    column.coldChanged = showMs(again.coldStartMs);
    await again.stop();
    console.error(`  ${setup.name}: reading the file back with python`);
    const expected = rows - measured.deleted + measured.appended;
    const check = await checkFile(kind, setup.file, EDITED_FIELD, APPEND_MARKER);
    const ok =
      check.rows === expected && check.appended === measured.appended && check.first === EDITED_VALUE;
    column.check = `${ok ? 'as expected' : '**not as expected**'}: ${thousands(check.rows)} data rows (expected ${thousands(expected)}), ${check.appended} appended rows, edited cell ${check.first === EDITED_VALUE ? 'kept' : `**${JSON.stringify(check.first)}**`}`;
    return column;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function sheetportColumn(
  kind: Kind,
  rows: number,
  files: ScaleFiles,
  writes: number,
): Promise<{ name: string; column: Column }> {
  const name = `SheetPort .${kind}`;
  try {
    const column = await sheetportOnce(kind, rows, files, writes, sheetportEnv());
    return { name, column: { opens: 'yes', ...column } };
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    console.error(`  ${name}: refused with the default settings (${err.message}); again with limits raised`);
    const raised = Object.entries(RAISED_LIMITS)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    const opens = `**no**, refused: ${err.message} Measured below with ${raised}`;
    try {
      const column = await sheetportOnce(kind, rows, files, writes, sheetportEnv(RAISED_LIMITS));
      return { name: `${name} (limits raised)`, column: { opens, ...column } };
    } catch (again) {
      if (!(again instanceof Refused)) throw again;
      return { name, column: { opens: `${opens}: refused again: ${again.message}` } };
    }
  }
}

export async function jsonServerColumn(
  rows: number,
  files: ScaleFiles,
  writes: number,
): Promise<{ name: string; column: Column }> {
  const dir = runDir();
  try {
    const db = path.join(dir, 'db.json');
    copyFileSync(files.db, db);
    const server = await startJsonServer(db, rows);
    try {
      const { column } = await measureServer(server, { edited: null, writes });
      return { name: server.name, column: { opens: 'yes', connect: '-', check: '-', ...column } };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

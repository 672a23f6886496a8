/**
 * SheetPort as a user runs it: `sheetport connect <file>` and `sheetport keys create` on a fresh data dir, then
 * `node bin/sheetport.js serve` as a child process. With the default settings unless `env` raises limits.
 */

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { builtCliEnv } from '../built-cli.ts';
import { EDITED_FIELD, SCALE_TAB } from './cache.ts';
import { stopChild, track } from './children.ts';
import { appendedRow, pageOffset, type ServerUnderTest, searchTerm, writePlace } from './server.ts';
import { HttpError, send } from './timing.ts';

const CLI = fileURLToPath(new URL('../../bin/sheetport.js', import.meta.url));

/** SheetPort would not read the file: its error message. */
export class Refused extends Error {}

/** This process's environment without any SHEETPORT_* variable (defaults), plus `extra`. */
export function sheetportEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('SHEETPORT_')),
  );
  return { ...env, ...builtCliEnv(), ...extra };
}

const errorMessage = (text: string): string => {
  try {
    return (JSON.parse(text) as { error: { message: string } }).error.message;
  } catch {
    return text.trim().slice(0, 400);
  }
};

async function cli(
  dataDir: string,
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<Record<string, unknown>> {
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [CLI, ...args, '--data-dir', dataDir, '--json'],
      {
        env,
        timeout: 1_800_000,
        maxBuffer: 16 << 20,
      },
    );
    return JSON.parse(stdout) as Record<string, unknown>;
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Refused(errorMessage(stderr.split('\n').find(Boolean) ?? String(err)));
  }
}

export interface SheetPortSetup {
  name: string;
  /** The served copy of the workbook. */
  file: string;
  rows: number;
  dataDir: string;
  env: NodeJS.ProcessEnv;
}

/** A copy of `workbook` in a new temporary run dir, with its own data dir: what one SheetPort run serves. */
export async function servedCopy(
  prefix: string,
  workbook: string,
  rows: number,
): Promise<SheetPortSetup & { runDir: string }> {
  const runDir = await mkdtemp(path.join(os.tmpdir(), prefix));
  const file = path.join(runDir, `orders${path.extname(workbook)}`);
  await copyFile(workbook, file);
  return { name: 'SheetPort', file, rows, dataDir: path.join(runDir, 'data'), env: sheetportEnv(), runDir };
}

/** Connects the file (timed: the CLI reads it whole) and creates a read-write key. */
export async function connectSheetPort(
  setup: SheetPortSetup,
): Promise<{ connectMs: number; userKey: string; key: string }> {
  const started = performance.now();
  const connected = await cli(setup.dataDir, setup.env, 'connect', setup.file);
  const connectMs = performance.now() - started;
  const created = await cli(
    setup.dataDir,
    setup.env,
    ...['keys', 'create', '--scope', 'read_write', '--plan', 'enterprise', '--per-second', '1000000'],
    ...['--daily', '1000000000'],
  );
  return { connectMs, userKey: connected.user_key as string, key: created.key as string };
}

/** A running `sheetport serve`: its URL, the key's headers, the tab's `/api` route, and how to stop it. */
export interface ServingSheetPort {
  child: ChildProcess;
  url: string;
  headers: Record<string, string>;
  tab: string;
  stop: () => Promise<void>;
}

/** `sheetport serve` on the set-up data dir, resolved once a 100-row list has been answered. */
export async function serveSheetPort(
  setup: SheetPortSetup,
  { userKey, key }: { userKey: string; key: string },
): Promise<ServingSheetPort> {
  const child = track(
    spawn(process.execPath, [CLI, 'serve', '--data-dir', setup.dataDir, '--port', '0', '--json'], {
      env: setup.env,
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  while (!out.includes('\n')) {
    if (child.exitCode !== null) throw new Error(`sheetport serve exited ${child.exitCode}: ${out}`);
    await Promise.race([once(child.stdout!, 'data'), once(child, 'exit')]);
  }
  const url = (JSON.parse(out.split('\n')[0]!) as { url: string }).url;
  const headers = { authorization: `Bearer ${key}` };
  const tab = `${url}/api/spreadsheets/${userKey}/${encodeURIComponent(SCALE_TAB)}`;
  const stop = () => stopChild(child);
  try {
    await send({ method: 'GET', url: `${tab}?limit=100`, headers }, 1_800_000);
  } catch (err) {
    await stop();
    if (err instanceof HttpError) throw new Refused(errorMessage(err.body));
    throw err;
  }
  return { child, url, headers, tab, stop };
}

/** `serveSheetPort`, as the scale benchmark's server under test. */
export async function startSheetPort(
  setup: SheetPortSetup,
  keys: { userKey: string; key: string },
): Promise<ServerUnderTest> {
  const started = performance.now();
  const { child, headers, tab, stop } = await serveSheetPort(setup, keys);
  const coldStartMs = performance.now() - started;
  const { deleteAt, updateFrom } = writePlace(setup.rows);
  const oneRow = { method: 'GET' as const, url: `${tab}/1`, headers };
  return {
    name: setup.name,
    pid: child.pid!,
    coldStartMs,
    listPage: (i) => ({
      method: 'GET',
      url: `${tab}?limit=100&offset=${pageOffset(i + 1, setup.rows)}`,
      headers,
    }),
    search: (i) => ({
      method: 'GET',
      url: `${tab}?limit=100&search=${encodeURIComponent(`Order ID:${searchTerm(i, setup.rows)}`)}`,
      headers,
    }),
    smallRead: () => oneRow,
    deleteRow: () => ({ method: 'DELETE', url: `${tab}/${deleteAt}`, headers }),
    appendRow: (i) => ({ method: 'POST', url: tab, headers, body: appendedRow(i) }),
    updateRow: (i) => ({
      method: 'PATCH',
      url: `${tab}/${updateFrom + i}`,
      headers,
      body: { Quantity: 1000 + i },
    }),
    file: setup.file,
    editedCell: async () => ((await send(oneRow)) as Record<string, unknown>)[EDITED_FIELD],
    stop,
  };
}

/** The path the served copy of a `kind` workbook gets in `runDir`. */
export const servedPath = (runDir: string, kind: string): string => path.join(runDir, `orders.${kind}`);

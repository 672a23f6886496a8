import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DATA_DIR_ENV, DEFAULT_HOST, DEFAULT_PORT } from '../config.ts';
import { connectSpreadsheet } from '../connections/connect.ts';
import { logStrayErrors, startServer, stopOnSignals } from '../index.ts';
import { findPackageFile } from '../lib/package-file.ts';
import { createDemoSpreadsheet, sourceSettings } from '../sources/index.ts';
import { cliConfig, type Stores, withStores } from './kit.ts';
import { cliCommand, exportLine } from './shell-line.ts';
import { startService } from './start-service.ts';
import { startedByNpmScript, whenParentExits } from './stop-with-parent.ts';

export interface DemoOptions {
  dataDir: string;
  /** Explicit port; when absent 8787 is tried and a free port is taken if it is busy. */
  port?: number;
  json: boolean;
}

interface DemoState {
  keyId: string;
  key: string;
}

/**
 * `npm start`: a working service in one command. Creates (once) a demo workbook, connects it and makes a
 * read_write demo key. The demo key is kept in plain text in the demo data dir so it can be printed on every
 * start; real keys are only ever stored hashed.
 */
export async function runDemo(options: DemoOptions): Promise<void> {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const demo = await createDemoSpreadsheet(options.dataDir);
  const workbook = demo.location;
  const { connection, state } = await withStores({ dataDir: options.dataDir }, async (stores) => {
    const { connection } = await connectSpreadsheet(
      stores.connections,
      {
        location: demo.location,
        kind: demo.kind.name,
        name: demo.name,
      },
      { secrets: stores.secrets, ...sourceSettings(cliConfig()) },
    );
    return { connection, state: await loadOrCreateKey(options.dataDir, stores.keys) };
  });

  const service = await startOnPort(options);
  const lines = demoLines({
    url: service.url,
    dataDir: options.dataDir,
    key: state.key,
    userKey: connection.userKey,
    spreadsheetId: connection.spreadsheetId,
  });
  if (options.json) {
    console.log(
      JSON.stringify({
        url: service.url,
        key: state.key,
        user_key: connection.userKey,
        spreadsheet_id: connection.spreadsheetId,
        data_dir: options.dataDir,
        workbook,
        ...lines,
      }),
    );
  } else {
    const apiDoc = findPackageFile(path.join('docs', 'api.md'));
    console.log(
      [
        `SheetPort is running at ${service.url}`,
        `  demo workbook: ${workbook} (tabs Orders and Products)`,
        `  demo data dir: ${options.dataDir} (the demo's own; the CLI needs --data-dir or SHEETPORT_DATA_DIR to see it)`,
        `  demo API key (read_write, for this demo only): ${state.key}`,
        '',
        "In another terminal, set the variables the README's examples use:",
        `  ${lines.exports}`,
        '',
        'Try it:',
        `  ${lines.curl}`,
        `  ${lines.cli}`,
        '',
        `API reference: ${apiDoc ?? 'docs/api.md'}  ·  OpenAPI: ${service.url}/openapi.json`,
        'Press Ctrl-C to stop.',
      ].join('\n'),
    );
  }
  logStrayErrors();
  stopOnSignals(service, () => process.exit(0));
  // `npm start` then SIGTERM to npm: the shell between npm and this process does not pass the signal on.
  if (startedByNpmScript()) whenParentExits(() => process.kill(process.pid, 'SIGTERM'));
}

/**
 * The lines `npm start` prints for pasting, each working as printed in a POSIX shell from any directory: the
 * variables the README uses (the data dir among them, so the CLI in that shell sees the demo), a curl line
 * and a CLI line.
 */
export function demoLines(demo: {
  url: string;
  dataDir: string;
  key: string;
  userKey: string;
  spreadsheetId: string;
}): { exports: string; curl: string; cli: string } {
  return {
    exports: exportLine({
      [DATA_DIR_ENV]: demo.dataDir,
      SP: demo.url,
      KEY: demo.key,
      USER_KEY: demo.userKey,
      SPREADSHEET_ID: demo.spreadsheetId,
    }),
    curl: `curl -H "Authorization: Bearer ${demo.key}" "${demo.url}/api/spreadsheets/${demo.userKey}/Orders?limit=3"`,
    cli: `${cliCommand(demo.dataDir)} keys list`,
  };
}

async function loadOrCreateKey(dataDir: string, keys: Stores['keys']): Promise<DemoState> {
  const file = path.join(dataDir, 'demo-key.json');
  if (existsSync(file)) {
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as DemoState;
      const record = await keys.findByKey(saved.key);
      if (record && !record.revokedAt) return saved;
    } catch {
      // An unreadable demo-key file is replaced by a new key below.
    }
  }
  const { record, key } = await keys.create({ name: 'demo', scope: 'read_write', plan: 'pro' });
  const state = { keyId: record.id, key };
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  return state;
}

async function startOnPort(options: DemoOptions) {
  const base = { dataDir: options.dataDir, host: DEFAULT_HOST, config: cliConfig() };
  // A port the user chose is theirs: a busy one is said plainly, as `serve` says it.
  if (options.port !== undefined) return startService({ ...base, port: options.port });
  try {
    return await startServer({ ...base, port: DEFAULT_PORT });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    return startServer({ ...base, port: 0 });
  }
}

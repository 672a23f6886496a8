import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_HOST, DEFAULT_PORT } from './config.ts';
import { createServiceContext } from './context.ts';
import { logStrayErrors, startService, stopOnSignals } from './service.ts';
import { createDemoWorkbook } from './sources/workbook/index.ts';

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
  const workbook = path.join(options.dataDir, 'demo.xlsx');
  if (!existsSync(workbook)) await createDemoWorkbook(workbook);

  const setup = createServiceContext({ dataDir: options.dataDir });
  let userKey: string;
  let state: DemoState;
  try {
    const connection =
      setup.connections.list().find((c) => c.location === workbook) ??
      setup.connections.create({ name: 'demo.xlsx', sourceKind: 'workbook', location: workbook });
    userKey = connection.userKey;
    state = loadOrCreateKey(options.dataDir, setup);
  } finally {
    await setup.close();
  }

  const service = await startOnPort(options);
  const listUrl = `${service.url}/api/spreadsheets/${userKey}/Orders?limit=3`;
  const curl = `curl -H "Authorization: Bearer ${state.key}" "${listUrl}"`;
  if (options.json) {
    console.log(JSON.stringify({ url: service.url, key: state.key, userKey, curl, workbook }));
  } else {
    console.log(
      [
        `SheetPort is running at ${service.url}`,
        `  demo workbook: ${workbook} (tabs Orders and Products)`,
        `  demo API key (read_write, for this demo only): ${state.key}`,
        '',
        'Try it:',
        `  ${curl}`,
        '',
        `API reference: docs/api.md  ·  OpenAPI: ${service.url}/openapi.json`,
        'Press Ctrl-C to stop.',
      ].join('\n'),
    );
  }
  logStrayErrors();
  stopOnSignals(service, () => process.exit(0));
}

function loadOrCreateKey(dataDir: string, context: ReturnType<typeof createServiceContext>): DemoState {
  const file = path.join(dataDir, 'demo-key.json');
  if (existsSync(file)) {
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as DemoState;
      const record = context.keys.findByKey(saved.key);
      if (record && !record.revokedAt) return saved;
    } catch {
      // An unreadable demo-key file is replaced by a new key below.
    }
  }
  const { record, key } = context.keys.create({ name: 'demo', scope: 'read_write', plan: 'pro' });
  const state = { keyId: record.id, key };
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  return state;
}

async function startOnPort(options: DemoOptions) {
  const base = { dataDir: options.dataDir, host: DEFAULT_HOST };
  if (options.port !== undefined) return startService({ ...base, port: options.port });
  try {
    return await startService({ ...base, port: DEFAULT_PORT });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    return startService({ ...base, port: 0 });
  }
}

import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { describe } from 'vitest';
import { createApp } from '../../server/app.ts';
import type { GoogleConfig, SheetPortConfig } from '../../server/config.ts';
import { connectSpreadsheet } from '../../server/connections/connect.ts';
import { type ContextOptions, openServiceContext, type ServiceContext } from '../../server/context.ts';
import { closeServer, listen } from '../../server/listen.ts';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import type { CellValue } from '../../server/sources/source.ts';
import { DEFAULT_LEASE_TTL_MS } from '../../server/team-config.ts';
import { seedWorkbook } from '../fakes/google-sheets/seed.ts';
import { googleConfig } from './config.ts';
import { fileHash } from './fixtures.ts';
import { type GoogleAccount, startGoogleAccount, storeLogin } from './google.ts';
import { freshDatabase, TEST_SECRET_KEY } from './postgres.ts';

/** Tests read JSON bodies loosely and assert their shape, so `json()` is `any` here. */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are checked by assertions, not types
export type TestResponse = Omit<Response, 'json'> & { json(): Promise<any> };

/** The kinds of spreadsheet the HTTP suites run against: local workbook files, and Google Sheets on the fake. */
export type KindName = 'workbook' | 'google';
export const KINDS: readonly KindName[] = ['workbook', 'google'];

/** The stores the service keeps its records in: the embedded SQLite, and PostgreSQL (team mode). */
export type StoreName = 'sqlite' | 'postgres';
export const STORES: readonly StoreName[] = ['sqlite', 'postgres'];

/** One suite, run once per kind and store: the same test bodies against a workbook and a Google spreadsheet, each
 * with the service's records in SQLite and in a real PostgreSQL (a fresh database per harness). */
export function forEachKind(body: (kind: KindName, store: StoreName) => void): void {
  const settings = KINDS.flatMap((kind) => STORES.map((store) => [kind, store] as const));
  describe.each(settings)('%s on %s', body);
}

/** A spreadsheet made from a workbook file and connected as the harness's kind. */
export interface ConnectedBook {
  connection: ConnectionRecord;
  /** The workbook file behind the connection; null for Google (seeded from that file, then independent of it). */
  file: string | null;
  /** Set cells the way another program would: a save in Excel, an edit in the browser (then waits until the
   * service's next look can see it; for Google that takes the real clock, as the Drive check is paced by it). */
  editOutside(tab: string, cells: Record<string, CellValue>): Promise<void>;
  /** A cell's value as the spreadsheet stores it (numbers as numbers, text as text), read past the service. */
  cell(tab: string, address: string): Promise<unknown>;
  /** Moves whenever the stored spreadsheet changes: the file's hash; Google's Drive version. */
  fingerprint(): Promise<string>;
}

export interface Harness {
  kind: KindName;
  store: StoreName;
  /** The PostgreSQL database the records are in (store 'postgres'); null for SQLite. */
  databaseUrl: string | null;
  /** The account on the Sheets fake when `kind` is google. */
  google: GoogleAccount | null;
  url: string;
  dir: string;
  context: ServiceContext;
  server: Server;
  /** A read_write key reaching every connection. */
  key: string;
  /** Connect a workbook file (whatever the harness's kind). */
  connect(file: string): Promise<ConnectionRecord>;
  /** Connect the spreadsheet `file` holds as the harness's kind: the file itself, or a Google spreadsheet the
   * fake seeds from it (same tabs, typed values and number formats). */
  connectBook(file: string): Promise<ConnectedBook>;
  createKey(options?: Parameters<ServiceContext['keys']['create']>[0]): Promise<string>;
  /** fetch against the harness with the read_write key unless `auth` says otherwise. */
  fetch(pathAndQuery: string, init?: RequestInit & { auth?: string | null }): Promise<TestResponse>;
  close(): Promise<void>;
}

const UNLIMITED = { plan: 'enterprise', perSecond: 1_000_000, daily: 1_000_000_000 } as const;

/** How old (ms) a Google copy may be before a read asks Drive again: short, so outside edits show up fast. */
const GOOGLE_MAX_AGE_MS = 40;
/** The service finds the fake, and paces itself, through its configuration, as `sheetport serve` would through
 * SHEETPORT_GOOGLE_*. The quota budget is lifted: these suites are not about it (google-freshness.test.ts is). */
const harnessGoogle = (fakeUrl: string): GoogleConfig => ({
  apiRoot: fakeUrl,
  maxAgeMs: GOOGLE_MAX_AGE_MS,
  readsPerMinute: 1_000_000,
  writesPerMinute: 1_000_000,
});

/** One fake shared by the Google harnesses open at once, so a restart over the same data dir finds its
 * spreadsheets; the last one to close stops it. */
let sharedGoogle: { account: Promise<GoogleAccount>; users: number } | null = null;

async function acquireGoogle(): Promise<GoogleAccount> {
  sharedGoogle ??= { account: startGoogleAccount(), users: 0 };
  sharedGoogle.users++;
  return sharedGoogle.account;
}

async function releaseGoogle(): Promise<void> {
  if (!sharedGoogle || --sharedGoogle.users > 0) return;
  const { account } = sharedGoogle;
  sharedGoogle = null;
  await (await account).close();
}

const quoted = (tab: string) => `'${tab.replaceAll("'", "''")}'`;

function workbookBook(connection: ConnectionRecord, file: string): ConnectedBook {
  return {
    connection,
    file,
    async editOutside(tab, cells) {
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.readFile(file);
      const sheet = wb.getWorksheet(tab);
      if (!sheet) throw new Error(`no tab ${tab} in ${file}`);
      for (const [address, value] of Object.entries(cells)) sheet.getCell(address).value = value;
      // A later modification time than the service's own last write, however coarse the file system's clock.
      await new Promise((resolve) => setTimeout(resolve, 20));
      await wb.xlsx.writeFile(file);
    },
    async cell(tab, address) {
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.readFile(file);
      return wb.getWorksheet(tab)?.getCell(address).value;
    },
    fingerprint: () => fileHash(file),
  };
}

function googleBook(connection: ConnectionRecord, account: GoogleAccount): ConnectedBook {
  const spreadsheetId = connection.spreadsheetId;
  return {
    connection,
    file: null,
    async editOutside(tab, cells) {
      await account.sheets.spreadsheets.values.batchUpdate({
        spreadsheetId,
        requestBody: {
          valueInputOption: 'RAW',
          data: Object.entries(cells).map(([address, value]) => ({
            range: `${quoted(tab)}!${address}`,
            values: [[value]],
          })),
        },
      });
      // The service sees it on its first look after the Drive version it holds is older than the max age.
      await new Promise((resolve) => setTimeout(resolve, GOOGLE_MAX_AGE_MS * 2));
    },
    async cell(tab, address) {
      const res = await account.sheets.spreadsheets.values.get({
        spreadsheetId,
        range: `${quoted(tab)}!${address}`,
        valueRenderOption: 'UNFORMATTED_VALUE',
      });
      return res.data.values?.[0]?.[0] ?? null;
    },
    async fingerprint() {
      const res = await account.drive.files.get({ fileId: spreadsheetId, fields: 'version' });
      return String(res.data.version);
    },
  };
}

/** A real server on an ephemeral loopback port over a temp data dir: the path every HTTP test goes through.
 * With `kind: 'google'`, `connectBook` connects Google spreadsheets on a Sheets fake (logged in for the data dir). */
export async function startHarness(
  options: {
    kind?: KindName;
    clock?: () => Date;
    dataDir?: string;
    fileLimits?: ContextOptions['fileLimits'];
    /** Google settings over the harness's own (a suite that runs its own fake, or sets the quota). */
    google?: GoogleConfig;
    /** Other settings over the test configuration (test/helpers/config.ts). */
    config?: Partial<SheetPortConfig>;
    /** The service's seams a suite holds or replaces (who owns a spreadsheet, a hook before a file is replaced). */
    seams?: Pick<ContextOptions, 'ownership' | 'beforeFileReplace' | 'watchPollMs'>;
    /** Where the service keeps its records (default SQLite in the data dir). */
    store?: StoreName;
    /** With `store: 'postgres'`: the database to use (a restart over the same records); default a fresh one. */
    databaseUrl?: string;
  } = {},
): Promise<Harness> {
  const kind = options.kind ?? 'workbook';
  const google = kind === 'google' ? await acquireGoogle() : null;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-test-'));
  const databaseUrl =
    options.store === 'postgres' ? (options.databaseUrl ?? (await freshDatabase())) : undefined;
  const context = await openServiceContext({
    dataDir: options.dataDir ?? path.join(dir, 'data'),
    config: googleConfig(
      { ...(google ? harnessGoogle(google.fake.url) : {}), ...options.google },
      {
        ...(databaseUrl
          ? { team: { databaseUrl, secretKey: TEST_SECRET_KEY, leaseTtlMs: DEFAULT_LEASE_TTL_MS } }
          : {}),
        ...options.config,
      },
    ),
    log: () => {},
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.fileLimits ? { fileLimits: options.fileLimits } : {}),
    ...options.seams,
  });
  const { app, closeStreams } = createApp(context);
  const { server, port } = await listen(app, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  // Test keys get limits no test reaches unless it asks for a plan: the limits have their own tests.
  const key = (await context.keys.create({ name: 'test', scope: 'read_write', ...UNLIMITED })).key;
  if (google) storeLogin(google.fake, context.secrets);
  const connect = async (file: string) =>
    await context.connections.create({
      name: path.basename(file),
      sourceKind: 'workbook',
      idPrefix: 'wb_',
      location: file,
    });
  return {
    kind,
    store: options.store ?? 'sqlite',
    databaseUrl: databaseUrl ?? null,
    google,
    url,
    dir,
    context,
    server,
    key,
    connect,
    async connectBook(file) {
      if (!google) return workbookBook(await connect(file), file);
      const { id } = await seedWorkbook(google.fake.store, file);
      // As `sheetport connect google <id>` does: the spreadsheet is read, then registered under Google's id.
      const { connection } = await connectSpreadsheet(
        context.connections,
        { location: id },
        context.sourceOptions,
      );
      return googleBook(connection, google);
    },
    createKey: async (options) => (await context.keys.create({ ...UNLIMITED, ...options })).key,
    fetch(pathAndQuery, init = {}) {
      const { auth, ...rest } = init;
      const headers = new Headers(rest.headers);
      const bearer = auth === undefined ? key : auth;
      if (bearer !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${bearer}`);
      return fetch(url + pathAndQuery, { ...rest, headers });
    },
    async close() {
      try {
        // Open event streams and MCP sessions end first, as a stopping server ends them (index.ts).
        closeStreams();
        await closeServer(server);
        await context.close();
        await rm(dir, { recursive: true, force: true });
      } finally {
        if (google) await releaseGoogle();
      }
    },
  };
}

/** `/api/spreadsheets/{userKey}/{sheet}` with the sheet name encoded the way a client must. */
export function rowsPath(connection: ConnectionRecord, sheet: string, rest = ''): string {
  return `/api/spreadsheets/${connection.userKey}/${encodeURIComponent(sheet)}${rest}`;
}

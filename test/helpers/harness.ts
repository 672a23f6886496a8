import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../server/app.ts';
import { type ContextOptions, createServiceContext, type ServiceContext } from '../../server/context.ts';
import { closeServer, listen } from '../../server/listen.ts';
import type { ConnectionRecord } from '../../server/store/connections.ts';

/** Tests read JSON bodies loosely and assert their shape, so `json()` is `any` here. */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are checked by assertions, not types
export type TestResponse = Omit<Response, 'json'> & { json(): Promise<any> };

export interface Harness {
  url: string;
  dir: string;
  context: ServiceContext;
  server: Server;
  /** A read_write key reaching every connection. */
  key: string;
  connect(file: string): ConnectionRecord;
  createKey(options?: Parameters<ServiceContext['keys']['create']>[0]): string;
  /** fetch against the harness with the read_write key unless `auth` says otherwise. */
  fetch(pathAndQuery: string, init?: RequestInit & { auth?: string | null }): Promise<TestResponse>;
  close(): Promise<void>;
}

const UNLIMITED = { plan: 'enterprise', perSecond: 1_000_000, daily: 1_000_000_000 } as const;

/** A real server on an ephemeral loopback port over a temp data dir: the path every HTTP test goes through. */
export async function startHarness(
  options: { clock?: () => Date; dataDir?: string; fileLimits?: ContextOptions['fileLimits'] } = {},
): Promise<Harness> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-test-'));
  const context = createServiceContext({
    dataDir: options.dataDir ?? path.join(dir, 'data'),
    log: () => {},
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.fileLimits ? { fileLimits: options.fileLimits } : {}),
  });
  const { app } = createApp(context);
  const { server, port } = await listen(app, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  // Test keys get limits no test reaches unless it asks for a plan: the limits have their own tests.
  const key = context.keys.create({ name: 'test', scope: 'read_write', ...UNLIMITED }).key;
  return {
    url,
    dir,
    context,
    server,
    key,
    connect: (file) =>
      context.connections.create({
        name: path.basename(file),
        sourceKind: 'workbook',
        idPrefix: 'wb_',
        location: file,
      }),
    createKey: (options) => context.keys.create({ ...UNLIMITED, ...options }).key,
    fetch(pathAndQuery, init = {}) {
      const { auth, ...rest } = init;
      const headers = new Headers(rest.headers);
      const bearer = auth === undefined ? key : auth;
      if (bearer !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${bearer}`);
      return fetch(url + pathAndQuery, { ...rest, headers });
    },
    async close() {
      await closeServer(server);
      await context.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `/api/spreadsheets/{userKey}/{sheet}` with the sheet name encoded the way a client must. */
export function rowsPath(connection: ConnectionRecord, sheet: string, rest = ''): string {
  return `/api/spreadsheets/${connection.userKey}/${encodeURIComponent(sheet)}${rest}`;
}

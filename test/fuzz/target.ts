/**
 * The fuzzer's target: a data dir with the fuzz workbook and a spare one connected, keys of each kind, the service
 * running in a child process (serve-target.ts), a real webhook receiver on loopback with a webhook on `Orders`,
 * and the real ids a request may name. Everything a run needs to know of the service it learned over HTTP or
 * set up through the stores, as `sheetport connect` and `sheetport keys create` do.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readConfig } from '../../server/config.ts';
import { createServiceContext } from '../../server/context.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { send } from './send.ts';
import { ORDERS, writeFuzzWorkbook } from './workbook.ts';

export interface Keys {
  readWrite: string;
  read: string;
  /** A read_write key that may write formulas. */
  formulas: string;
  /** On the Free plan (10 a second): its refusals are answers too. */
  free: string;
}

export interface Target {
  base: URL;
  dataDir: string;
  ordersFile: string;
  spareFile: string;
  keys: Keys;
  /** The admin token in force (a rotation the fuzzer makes replaces it: `refreshAdminToken`). */
  adminToken: string;
  refreshAdminToken: () => Promise<void>;
  userKey: string;
  spreadsheetId: string;
  sheetId: string;
  spare: { userKey: string; spreadsheetId: string };
  webhookId: string;
  receiverUrl: string;
  /** The service's process id (its CPU time is read from it). */
  pid: number;
  /** What the service wrote to stderr: its own failures, with their causes. */
  serverLog: () => string;
  alive: () => boolean;
  stop: () => Promise<void>;
}

const UNLIMITED = { plan: 'enterprise', perSecond: 1_000_000, daily: 1_000_000_000 } as const;

async function prepare(dataDir: string, ordersFile: string, spareFile: string) {
  await writeFuzzWorkbook(ordersFile);
  await writeFuzzWorkbook(spareFile);
  const setup = createServiceContext({ dataDir, config: { ...readConfig(), secrets: 'file' } });
  try {
    const connect = (file: string) =>
      setup.connections.create({
        name: path.basename(file),
        sourceKind: 'workbook',
        idPrefix: 'wb_',
        location: file,
      });
    const orders = await connect(ordersFile);
    const spare = await connect(spareFile);
    const make = async (options: Parameters<typeof setup.keys.create>[0]) =>
      (await setup.keys.create(options)).key;
    const keys: Keys = {
      readWrite: await make({ name: 'fuzz rw', scope: 'read_write', ...UNLIMITED }),
      read: await make({ name: 'fuzz read', scope: 'read', ...UNLIMITED }),
      formulas: await make({ name: 'fuzz formulas', scope: 'read_write', allowFormulas: true, ...UNLIMITED }),
      free: await make({ name: 'fuzz free', scope: 'read_write', plan: 'free' }),
    };
    return { orders, spare, keys };
  } finally {
    await setup.close();
  }
}

function startChild(
  dataDir: string,
): Promise<{ child: ChildProcess; url: string; adminToken: string; log: string[] }> {
  const log: string[] = [];
  const child = fork(new URL('./serve-target.ts', import.meta.url), [dataDir], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  child.stderr?.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.once('message', (m: { url: string; adminToken: string }) => resolve({ child, ...m, log }));
    child.once('exit', (code) =>
      reject(new Error(`the service exited (${code}) before it answered:\n${log.join('')}`)),
    );
  });
}

async function registerWebhook(base: URL, key: string, spreadsheetId: string, url: string): Promise<string> {
  const sent = await send(base, {
    method: 'POST',
    path: '/v1/webhooks',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ url, spreadsheet_id: spreadsheetId, sheet_name: ORDERS })),
  });
  if (!('answer' in sent) || sent.answer.status !== 201)
    throw new Error(`webhook registration failed: ${JSON.stringify(sent)}`);
  return JSON.parse(sent.answer.body.toString('utf8')).id;
}

async function sheetIdOf(base: URL, key: string, spreadsheetId: string): Promise<string> {
  const sent = await send(base, {
    method: 'GET',
    path: `/v1/spreadsheets/${spreadsheetId}`,
    headers: { authorization: `Bearer ${key}` },
  });
  if (!('answer' in sent)) throw new Error(sent.failure);
  const tabs: { sheet_id: string; name: string }[] = JSON.parse(sent.answer.body.toString('utf8')).sheets;
  const tab = tabs.find((t) => t.name === ORDERS);
  if (!tab) throw new Error(`no ${ORDERS} tab in ${sent.answer.body.toString('utf8')}`);
  return tab.sheet_id;
}

export async function startTarget(): Promise<Target> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-fuzz-'));
  const ordersFile = path.join(dataDir, 'fuzz-orders.xlsx');
  const spareFile = path.join(dataDir, 'fuzz-spare.xlsx');
  const { orders, spare, keys } = await prepare(dataDir, ordersFile, spareFile);
  const { child, url, adminToken, log } = await startChild(dataDir);
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const receiver = await startReceiver(() => 'unused: the fuzzer does not check signatures');
  const base = new URL(url);
  const webhookId = await registerWebhook(base, keys.readWrite, orders.spreadsheetId, receiver.url);
  const sheetId = await sheetIdOf(base, keys.read, orders.spreadsheetId);
  const target: Target = {
    base,
    dataDir,
    ordersFile,
    spareFile,
    keys,
    adminToken,
    userKey: orders.userKey,
    spreadsheetId: orders.spreadsheetId,
    sheetId,
    spare: { userKey: spare.userKey, spreadsheetId: spare.spreadsheetId },
    webhookId,
    receiverUrl: receiver.url,
    async refreshAdminToken() {
      const file = JSON.parse(await readFile(path.join(dataDir, 'secrets.json'), 'utf8'));
      target.adminToken = file.secrets['admin-token'];
    },
    pid: child.pid!,
    serverLog: () => log.join(''),
    alive: () => !exited,
    async stop() {
      if (!exited) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await gone;
      }
      await receiver.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return target;
}

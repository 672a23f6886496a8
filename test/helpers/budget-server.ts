/**
 * The service in a worker thread, for test/http/event-loop-budget.test.ts: the test reads this thread's event
 * loop (`worker.performance.eventLoopUtilization()`) from outside, and asks for its CPU time (`cpu`), so what it
 * measures is the server's work alone, not the client's. Started by `startServer` as `sheetport serve` starts it (request log included), on a data dir
 * and with a configuration the test hands in; it connects the files it is given and makes one unlimited key.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { SheetPortConfig } from '../../server/config.ts';
import { startServer } from '../../server/index.ts';

export interface BudgetServerInput {
  dataDir: string;
  config: SheetPortConfig;
  /** Files to connect, by name. */
  files: Record<string, string>;
}

export interface BudgetServerReady {
  url: string;
  key: string;
  /** Per file name: its connection's userKey and spreadsheet_id. */
  connections: Record<string, { userKey: string; spreadsheetId: string }>;
}

const input = workerData as BudgetServerInput;
const service = await startServer({
  dataDir: input.dataDir,
  config: input.config,
  port: 0,
  host: '127.0.0.1',
});
const { context } = service;
const key = (
  await context.keys.create({
    name: 'budget',
    scope: 'read_write',
    plan: 'enterprise',
    perSecond: 1_000_000,
    daily: 1_000_000_000,
  })
).key;
const connections: BudgetServerReady['connections'] = {};
for (const [name, file] of Object.entries(input.files)) {
  const record = await context.connections.create({
    name,
    sourceKind: 'workbook',
    idPrefix: 'wb_',
    location: file,
  });
  connections[name] = { userKey: record.userKey, spreadsheetId: record.spreadsheetId };
}
parentPort?.on('message', async (message: unknown) => {
  // This thread's CPU time so far (µs): what the server's work cost, whatever else the machine was running.
  if (message === 'cpu') parentPort?.postMessage({ cpu: process.threadCpuUsage() });
  if (message === 'stop') {
    await service.stop();
    parentPort?.close();
  }
});
parentPort?.postMessage({ url: service.url, key, connections } satisfies BudgetServerReady);

/**
 * Benchmark target (a): a bare Express 5 app with one route answering a fixed 100-row JSON array, the same
 * rows (same shape, same values) SheetPort returns for `?limit=100` on the 5,000-row tab. `res.json` serialises
 * the array on every request, as any real handler would. Runs in its own process; reports its URL over IPC.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { generateRows, rowObjects } from './data.ts';
import type { ReadyMessage } from './protocol.ts';

const rows = rowObjects(generateRows(100));
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/rows', (_req, res) => {
  res.json(rows);
});

const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  const message: ReadyMessage = {
    type: 'ready',
    url: `http://127.0.0.1:${port}`,
    targets: { bare: '/rows' },
    headers: {},
  };
  process.send?.(message);
});

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);

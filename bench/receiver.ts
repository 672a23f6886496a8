/**
 * A webhook receiver for the benchmark, in its own process (so it does not share a core with the sender):
 * answers 200 at once and reports each delivery's id and arrival time to the parent over IPC in batches.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

let batch: { id: string; at: number }[] = [];
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    batch.push({ id: String(req.headers['x-service-delivery']), at: Date.now() });
    res.end('ok');
  });
});
server.keepAliveTimeout = 1000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
});
setInterval(() => {
  if (batch.length === 0) return;
  process.send?.({ type: 'received', items: batch });
  batch = [];
}, 20).unref();
process.on('message', (m: { type: string }) => {
  if (m.type === 'stop') server.close(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { answerClientError, MAX_HEAD_BYTES } from './http/request-limits.ts';
import { http } from './lib/node-http.ts';

/**
 * Listen and resolve with the bound port; rejects on EADDRINUSE and the like instead of throwing later. The head
 * of a request is bounded (http/request-limits.ts), and one Node cannot parse is answered in the envelope.
 */
export function listen(app: Express, port: number, host: string): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = http.createServer({ maxHeaderSize: MAX_HEAD_BYTES }, app);
    server.on('clientError', answerClientError);
    server.listen(port, host);
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      resolve({ server, port: (server.address() as AddressInfo).port });
    });
  });
}

/** Stop accepting, let in-flight requests finish (writes included), then drop idle keep-alive sockets. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

export function baseUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

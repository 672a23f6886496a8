import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  /** X-Service-Signature checked with node:crypto, the Standard Webhooks headers with the standardwebhooks package. */
  signatureOk: boolean;
  standardOk: boolean;
}

/** A real webhook receiver on loopback that verifies both signature schemes, as a user's receiver would. */
export async function startReceiver(
  secret: () => string,
  respond: (r: Received, res: http.ServerResponse) => void = (_r, res) => res.end('ok'),
) {
  const received: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = raw.toString('utf8');
      const expected = createHmac('sha256', Buffer.from(secret(), 'utf8')).update(raw).digest('hex');
      const given = String(req.headers['x-service-signature'] ?? '');
      const signatureOk =
        given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
      let standardOk = false;
      try {
        new Webhook(secret()).verify(body, req.headers as Record<string, string>);
        standardOk = true;
      } catch {
        standardOk = false;
      }
      const r: Received = { headers: req.headers, body, json: JSON.parse(body), signatureOk, standardOk };
      received.push(r);
      for (const w of waiters.filter((w) => received.length >= w.count)) w.resolve();
      respond(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** Resolves once `count` requests have arrived (rejects after `ms`). */
    waitFor(count: number, ms = 10_000): Promise<void> {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${received.length} of ${count} deliveries arrived`)),
          ms,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

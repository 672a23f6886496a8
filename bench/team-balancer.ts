/**
 * A small round-robin HTTP balancer for `bench:team` (compose.yaml uses nginx for the same job): each request goes
 * to the next instance, with X-Forwarded-For set, over kept-alive connections.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startBalancer(targets: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let next = 0;
  const server = http.createServer((req, res) => {
    const target = new URL(targets[next++ % targets.length]!);
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '' },
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

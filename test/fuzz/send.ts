/**
 * One request as a plain Node client sends it (node:http, Node's default 16 KiB limit on an answer's headers), so
 * an answer a Node client cannot read is a finding, not a crash of the fuzzer. An event stream is read up to its
 * headers and closed.
 */
import http from 'node:http';
import type { Answer } from './answer-check.ts';

export interface Request {
  method: string;
  /** Path and query, already encoded. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export type Sent = { answer: Answer } | { failure: string; ms: number };

const TIMEOUT_MS = 15_000;

export function send(base: URL, request: Request): Promise<Sent> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method: request.method,
        path: request.path,
        headers: { ...request.headers, connection: 'close' },
        timeout: TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        const done = () =>
          resolve({
            answer: {
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks),
              ms: elapsed(),
            },
          });
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          res.destroy();
          return done();
        }
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', done);
        res.on('error', (err) => resolve({ failure: `reading the answer: ${err.message}`, ms: elapsed() }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ failure: `${err.code ?? ''} ${err.message}`.trim(), ms: elapsed() }),
    );
    req.end(request.body);
  });
}

/**
 * The logic of `npm run app:smoke` (main/smoke.ts) against a real server started through server/index.ts, as the
 * app starts it, with real HTTP and the real demo workbook (read by the parse worker). The tray is the one part
 * given as a value: creating it needs Electron, which cannot run here; main/index.ts passes whether
 * `new Tray()` succeeded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSmoke, type SmokeDeps } from '../../main/smoke.ts';
import { createDemoSpreadsheet, DEFAULT_HOST, type RunningServer, startServer } from '../../server/index.ts';

const temp = mkdtempSync(path.join(os.tmpdir(), 'sheetport-smoke-'));
let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    dataDir: path.join(temp, 'data'),
    port: 0,
    host: DEFAULT_HOST,
    requestLog: false,
    log: () => {},
  });
});
afterAll(async () => {
  await server.stop();
  rmSync(temp, { recursive: true, force: true });
});

const never = () => new Promise<void>(() => {});

function deps(overrides: Partial<SmokeDeps> = {}): SmokeDeps {
  return {
    server: { url: server.url, adminToken: server.adminToken },
    createDemo: async () => (await createDemoSpreadsheet(path.join(temp, 'data'))).location,
    tray: true,
    fetch,
    now: () => performance.now(),
    sleep: never,
    ...overrides,
  };
}

async function plainServer(handler: http.RequestListener): Promise<{ url: string; close(): void }> {
  const plain = http.createServer(handler);
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(plain.address() as AddressInfo).port}`,
    close: () => {
      plain.closeAllConnections();
      plain.close();
    },
  };
}

describe('the smoke check', () => {
  it('passes on a running app: the OpenAPI document, the demo read through /api, the tray', async () => {
    const result = await runSmoke(deps());
    expect(result.line).toMatch(
      /^SMOKE PASS server=http:\/\/127\.0\.0\.1:\d+ openapi=3\.1\.\d+ demo-read=\d+ rows tray=created \(\d+\.\d s\)$/,
    );
    expect(result.ok).toBe(true);
    // The demo read returned the demo's rows (its first tab has some).
    expect(Number(result.line.match(/demo-read=(\d+)/)?.[1])).toBeGreaterThan(0);
  });

  it('fails at the tray when it was not created, after the server checks passed', async () => {
    const result = await runSmoke(deps({ tray: 'the system tray is not available' }));
    expect(result.ok).toBe(false);
    expect(result.line).toMatch(
      /^SMOKE FAIL tray: the system tray is not available after server=\S+ openapi=3\.1\.\d+ demo-read=\d+ rows \(\d+\.\d s\)$/,
    );
  });

  it('fails at the server when it did not start, with its reason on the same line', async () => {
    const result = await runSmoke(
      deps({ server: null, startError: 'listen EACCES: permission denied\n127.0.0.1:80' }),
    );
    expect(result).toEqual({
      ok: false,
      line: expect.stringMatching(
        /^SMOKE FAIL server: listen EACCES: permission denied 127\.0\.0\.1:80 \(\d+\.\d s\)$/,
      ),
    });
  });

  it('fails at openapi when the address answers but is not SheetPort', async () => {
    const other = await plainServer((_req, res) => res.writeHead(404).end('not here'));
    try {
      const result = await runSmoke(deps({ server: { url: other.url, adminToken: 'x' } }));
      expect(result.ok).toBe(false);
      expect(result.line).toMatch(
        /^SMOKE FAIL openapi: GET \/openapi\.json answered 404 after server=\S+ \(/,
      );
    } finally {
      other.close();
    }
  });

  it('fails at the step that hangs when the deadline passes, in one line', async () => {
    let release = () => {};
    const deadline = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hanging = await plainServer((req) => {
      // Answers nothing; the deadline is released once the request arrived.
      if (req.url === '/openapi.json') release();
    });
    try {
      const result = await runSmoke(
        deps({ server: { url: hanging.url, adminToken: 'x' }, sleep: () => deadline }),
        25_000,
      );
      expect(result.ok).toBe(false);
      expect(result.line).toMatch(
        /^SMOKE FAIL openapi: no answer within 25 s after server=\S+ \(\d+\.\d s\)$/,
      );
      expect(result.line).not.toContain('\n');
    } finally {
      hanging.close();
    }
  });
});

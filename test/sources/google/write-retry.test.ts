/**
 * Sheets has no idempotency key, so a retried append could land twice. Between the google source and the fake
 * sits a small real HTTP proxy that can hold back the answer to an append (Google applied it, the caller timed
 * out) or refuse one with 503 (Google did not apply it): either way the row must be there exactly once.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openSource } from '../../../server/sources/index.ts';
import type { Source } from '../../../server/sources/source.ts';
import { type GoogleAccount, startGoogleAccount } from '../../helpers/google.ts';
import { writeOne } from '../../helpers/source-write.ts';

type Trouble = 'none' | 'answer-late' | 'refuse';

interface Proxy {
  url: string;
  /** What happens to the next append only. */
  nextAppend: Trouble;
  appends: number;
  close(): Promise<void>;
}

async function startProxy(target: string): Promise<Proxy> {
  const proxy: Proxy = { url: '', nextAppend: 'none', appends: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const isAppend = req.method === 'POST' && (req.url ?? '').includes(':append');
    const trouble = isAppend ? proxy.nextAppend : 'none';
    if (isAppend) {
      proxy.appends++;
      proxy.nextAppend = 'none';
    }
    if (trouble === 'refuse') {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 503, message: 'unavailable', status: 'UNAVAILABLE' } }));
      return;
    }
    const upstream = request(
      `${target}${req.url}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        };
        if (trouble === 'answer-late') setTimeout(send, 800);
        else send();
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

let account: GoogleAccount;
let proxy: Proxy;
let source: Source;

afterEach(async () => {
  await source?.close();
  await proxy?.close();
  await account?.close();
});

async function setUp(): Promise<{ id: string; sheetId: string }> {
  account = await startGoogleAccount();
  proxy = await startProxy(account.fake.url);
  const id = await account.createSpreadsheet('Log', ['Name', 'N'], [['a', 1]]);
  source = openSource(
    { sourceKind: 'google', location: id },
    account.options({ google: { apiRoot: proxy.url, timeoutMs: 300, retryBaseMs: 20 } }),
  );
  const sheetId = (await source.read()).tabs[0]!.sourceSheetId;
  return { id, sheetId };
}

async function namesIn(id: string): Promise<unknown[]> {
  const { data } = await account.sheets.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A:A' });
  return (data.values ?? []).flat();
}

const PLAIN = { allowFormulas: false, userEntered: false };

describe('google source: an append is never lost or doubled', () => {
  it('an append Google applied but answered too late is not sent again', async () => {
    const { id, sheetId } = await setUp();
    proxy.nextAppend = 'answer-late';
    const result = await writeOne(source, sheetId, [{ op: 'append', values: { Name: 'b', N: 2 } }], PLAIN);
    expect(result.appended).toBe(1);
    expect(proxy.appends).toBe(1);
    expect(await namesIn(id)).toEqual(['Name', 'a', 'b']);
    expect(result.snapshot.tabs[0]?.typed).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
  });

  it('an append Google refused with 503 is sent again and lands once', async () => {
    const { id, sheetId } = await setUp();
    proxy.nextAppend = 'refuse';
    await writeOne(source, sheetId, [{ op: 'append', values: { Name: 'c', N: 3 } }], PLAIN);
    expect(proxy.appends).toBe(2);
    expect(await namesIn(id)).toEqual(['Name', 'a', 'c']);
  });
});

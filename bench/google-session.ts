/**
 * Google requests a realistic session spends (not part of `vitest run`; run with `node bench/google-session.ts`).
 *
 * The Google fake sits behind a counting proxy, so every request SheetPort sends is counted by kind (Drive
 * metadata check, Sheets read, Sheets write, OAuth). SheetPort runs its real Spreadsheet and Google source with a
 * manual clock (time is injected, so five minutes and an hour take a few seconds); the HTTP layer is left out,
 * since it adds no Google request of its own. Another user's edits go to the fake directly and are not counted.
 *
 * 1. Busy: 5 minutes on one sheet with 100 reads (one every 3 s), 10 appends (one every 30 s) and 5 edits made
 *    in the browser by someone else.
 * 2. Idle: one hour with one webhook on the sheet (the spreadsheet is followed: a Drive check every 30 s), no reads,
 *    and one outside edit halfway.
 * 3. Idle: one hour with no webhook and no reads (checks stop 10 minutes after the last look), one outside edit
 *    halfway (seen by the next read, not counted here).
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConnectionRecord } from '../server/repositories/connections.ts';
import { openSource, type SourceOptions } from '../server/sources/index.ts';
import { InProcessOwnership } from '../server/spreadsheets/ownership.ts';
import { Spreadsheets } from '../server/spreadsheets/spreadsheets.ts';
import { startGoogleAccount } from '../test/helpers/google.ts';
import { ManualTimers } from '../test/helpers/manual-timers.ts';

type Counts = Record<string, number>;

function kindOf(method: string, url: string): string {
  const path = url.split('?')[0] ?? '';
  if (path.startsWith('/drive/')) return 'drive metadata check';
  if (path === '/token') return 'oauth token';
  if (path.endsWith(':append')) return 'sheets write (values.append)';
  if (path.endsWith(':batchUpdate')) return 'sheets write (batchUpdate)';
  if (path.startsWith('/v4/') && method === 'GET')
    return path.includes('/values/') ? 'sheets read (values.get)' : 'sheets read (spreadsheets.get)';
  return `${method} ${path}`;
}

/** A proxy to `target` that counts what passes through. */
async function countingProxy(target: string, counts: Counts): Promise<{ url: string; close: () => void }> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const kind = kindOf(req.method ?? 'GET', req.url ?? '/');
    counts[kind] = (counts[kind] ?? 0) + 1;
    const upstream = request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 15));

async function main(): Promise<void> {
  const account = await startGoogleAccount();
  const counts: Counts = {};
  const proxy = await countingProxy(account.fake.url, counts);
  const timers = new ManualTimers();
  const epoch = Date.now();
  const options: SourceOptions = {
    secrets: account.secrets,
    timers,
    google: { apiRoot: proxy.url, oauthRoot: proxy.url, now: () => epoch + timers.now },
  };
  const header = ['Item', 'Qty'];
  const id = await account.createSpreadsheet('Session', header, [['Tea', 1]]);
  const connection = { spreadsheetId: id, sourceKind: 'google', location: id } as ConnectionRecord;
  let outsideEdits = 0;
  const outsideEdit = async () => {
    outsideEdits++;
    await account.sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Sheet1!D1',
      valueInputOption: 'RAW',
      requestBody: { values: [[`edit ${outsideEdits}`]] },
    });
  };
  const tick = async (ms: number) => {
    timers.advance(ms);
    await settle();
  };

  // --- busy: 5 minutes, one event a second at most -------------------------------------------------------------
  const spreadsheets = new Spreadsheets({
    openSource: (c) => openSource(c, options),
    ownership: new InProcessOwnership(),
  });
  const spreadsheet = spreadsheets.of(connection);
  await spreadsheet.read(); // the first look, as when the connection is made
  const start = { ...counts };
  let reads = 0;
  let writes = 0;
  for (let second = 1; second <= 300; second++) {
    await tick(1_000);
    if (second % 60 === 30) await outsideEdit();
    if (second % 3 === 0) {
      await spreadsheet.read();
      reads++;
    }
    if (second % 30 === 15) {
      await spreadsheet.write('0', [{ op: 'append', values: { Item: `row ${second}`, Qty: second } }], {
        allowFormulas: false,
        userEntered: false,
      });
      writes++;
    }
  }
  const busy = diff(counts, start);
  print(`Busy 5 minutes: ${reads} reads, ${writes} appends, ${outsideEdits} outside edits`, busy);

  // --- idle: one hour, one webhook -----------------------------------------------------------------------------
  const idleHour = async (subscribed: boolean): Promise<Counts> => {
    const idleStart = { ...counts };
    spreadsheet.follow({ subscribed: () => subscribed });
    await settle();
    for (let second = 1; second <= 3600; second++) {
      timers.advance(1_000);
      if (second === 1800) await outsideEdit();
      if (second % 30 === 0) await settle();
    }
    await settle();
    spreadsheet.unfollow();
    return diff(counts, idleStart);
  };
  print('Idle hour with one webhook: 1 outside edit', await idleHour(true));
  print('Idle hour, no webhook and no reader: 1 outside edit', await idleHour(false));

  await spreadsheets.close();
  proxy.close();
  await account.close();
}

function diff(now: Counts, before: Counts): Counts {
  const out: Counts = {};
  for (const [kind, n] of Object.entries(now)) {
    const spent = n - (before[kind] ?? 0);
    if (spent > 0) out[kind] = spent;
  }
  return out;
}

function print(title: string, counts: Counts): void {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  console.log(`\n${title}: ${total} Google requests`);
  for (const [kind, n] of Object.entries(counts).sort()) console.log(`  ${String(n).padStart(4)}  ${kind}`);
}

await main();

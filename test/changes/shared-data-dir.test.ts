/**
 * The CLI and a running server share a data dir. A webhook registered with the CLI records the tab as it is
 * then, so an edit made before any server has looked is still notified; and a change the CLI recorded is not
 * recorded a second time by a server that saw the older version. Real CLI processes, a real server
 * (startServer), a real .csv file edited on disk and a real receiver.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../server/index.ts';
import { cliJson } from '../helpers/cli.ts';
import { startReceiver } from '../helpers/receiver.ts';

let dir: string;
let dataDir: string;
let file: string;
let service: RunningServer | undefined;
const closers: (() => Promise<void>)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-shared-'));
  dataDir = path.join(dir, 'data');
  file = path.join(dir, 'team.csv');
  await writeFile(file, 'Name,Age\nAda,36\nBob,41\n');
});
afterEach(async () => {
  await service?.stop();
  service = undefined;
  for (const close of closers.splice(0)) await close();
  await rm(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => cliJson<Record<string, unknown>>(args, { dataDir });

async function receiverFor(secret: { value: string }) {
  const receiver = await startReceiver(() => secret.value);
  closers.push(receiver.close);
  return receiver;
}

async function webhook(spreadsheetId: string, url: string): Promise<string> {
  const created = await cli(
    'webhooks',
    'create',
    '--url',
    url,
    '--spreadsheet',
    spreadsheetId,
    '--sheet',
    'team',
  );
  return created.secret as string;
}

const start = async () => {
  service = await startServer({ dataDir, port: 0, host: '127.0.0.1', log: () => {}, requestLog: false });
};

describe('a data dir shared by the CLI and a server', () => {
  it('an edit made after `webhooks create` and before any server looked is notified when one starts', async () => {
    const { spreadsheet_id: id } = await cli('connect', file);
    const secret = { value: '' };
    const receiver = await receiverFor(secret);
    secret.value = await webhook(id as string, receiver.url);

    await writeFile(file, 'Name,Age\nAda,37\nBob,41\n');
    await start();
    await receiver.waitFor(1);
    expect(receiver.received[0]!.signatureOk).toBe(true);
    expect(receiver.received[0]!.json).toMatchObject({
      event: 'row.updated',
      changed_rows: [{ row_index: 1, before: { Age: 36 }, after: { Age: 37 } }],
    });
  });

  it('a change the CLI recorded is not sent twice by a server that saw the version before it', async () => {
    const { spreadsheet_id: id } = await cli('connect', file);
    const secret = { value: '' };
    const receiver = await receiverFor(secret);
    secret.value = await webhook(id as string, receiver.url);
    await start();
    // The server has seen the file; it stops watching while another program edits it.
    await service!.context.spreadsheets
      .of((await service!.context.connections.resolve(id as string))!)
      .observe();
    await service!.pauseSync();
    await writeFile(file, 'Name,Age\nAda,36\nBob,42\n');
    // Registering a second webhook from the CLI records the edit (and queues its notification to the first).
    const other = await receiverFor({ value: '' });
    await webhook(id as string, other.url);
    service!.resumeSync();
    await receiver.waitFor(1);
    // Time for the resumed server to look at the file and, were it to record the edit again, to send it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.received.map((r) => r.json.event)).toEqual(['row.updated']);
    expect(other.received).toEqual([]);
  });
});

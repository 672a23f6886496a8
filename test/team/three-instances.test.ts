/**
 * Team mode end to end: three real `sheetport serve` processes on one PostgreSQL database and one workbook on a
 * shared folder, as a team runs them behind a load balancer. What must hold across instances: a key made by the
 * CLI works on every instance; a Free key gets exactly 10 answers in a burst spread over the three; a webhook
 * registered on one instance gets exactly one delivery for an append made on another and exactly one for an
 * outside save; the change feed reads the same everywhere; and when the owner of the spreadsheet is SIGKILLed
 * under write load, no acknowledged row and no notification is lost, and the next outside save is delivered
 * within the lease's TTL plus 5 s.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyJson, cliJson, type RunningServe, startServe } from '../helpers/cli.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { runPython } from '../helpers/openpyxl.ts';
import { freshDatabase, TEST_SECRET_KEY } from '../helpers/postgres.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';

/** A short lease, so the takeover is seen within the suite's time; docs/deploy.md gives the default (5 s). */
const TTL_MS = 2000;

let root: string;
let databaseUrl: string;
let env: NodeJS.ProcessEnv;
let file: string;
let userKey: string;
let spreadsheetId: string;
let key: string;
const instances: (RunningServe | null)[] = [];
const dataDirs: string[] = [];

async function call(i: number, pathAndQuery: string, init: RequestInit & { bearer?: string } = {}) {
  const { bearer = key, ...rest } = init;
  const server = instances[i];
  if (!server) throw new Error(`instance ${i} is stopped`);
  const headers = new Headers(rest.headers);
  headers.set('authorization', `Bearer ${bearer}`);
  if (rest.body) headers.set('content-type', 'application/json');
  return fetch(server.url + pathAndQuery, { ...rest, headers });
}

const rows = (rest = '') => `/api/spreadsheets/${userKey}/People${rest}`;

async function startInstance(i: number): Promise<RunningServe> {
  const server = await startServe(dataDirs[i]!, { env, quiet: true });
  instances[i] = server;
  return server;
}

/** The pid of the instance holding the spreadsheet's lease (instance ids end with the process id). */
async function ownerPid(): Promise<number | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: held } = await client.query<{ holder: string }>(
      'SELECT holder FROM spreadsheet_leases WHERE expires_at > now()',
    );
    const holder = held[0]?.holder;
    return holder ? Number(holder.split(':').at(-1)) : null;
  } finally {
    await client.end();
  }
}

async function outsideSave(name: string): Promise<void> {
  await runPython(
    `import openpyxl, sys
wb = openpyxl.load_workbook(sys.argv[1])
ws = wb['People']
ws.append([sys.argv[2], 77])
wb.save(sys.argv[1])`,
    [file, name],
  );
}

async function namesInFile(): Promise<string[]> {
  const out = await runPython(
    `import openpyxl, sys, json
ws = openpyxl.load_workbook(sys.argv[1])['People']
print(json.dumps([r[0] for r in ws.iter_rows(min_row=2, values_only=True)]))`,
    [file],
  );
  return JSON.parse(out) as string[];
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'sheetport-team-'));
  databaseUrl = await freshDatabase();
  env = {
    SHEETPORT_DATABASE_URL: databaseUrl,
    SHEETPORT_SECRET_KEY: TEST_SECRET_KEY,
    SHEETPORT_LEASE_TTL_MS: String(TTL_MS),
  };
  file = await writePeopleWorkbook(root);
  for (const i of [0, 1, 2]) dataDirs.push(path.join(root, `instance-${i}`));
  // The team's records are made once, by the CLI, against the shared database.
  const connected = await cliJson<AnyJson>(['connect', file, '--json'], { env, dataDir: dataDirs[0] });
  userKey = connected.user_key;
  spreadsheetId = connected.spreadsheet_id;
  const made = await cliJson<AnyJson>(
    [
      'keys',
      'create',
      '--scope',
      'read_write',
      '--plan',
      'enterprise',
      '--per-second',
      '100000',
      '--daily',
      '100000000',
      '--json',
    ],
    { env, dataDir: dataDirs[0] },
  );
  key = made.key;
  await Promise.all([0, 1, 2].map(startInstance));
}, 120_000);

afterAll(async () => {
  await Promise.all(instances.map((s) => s?.stop()));
  await rm(root, { recursive: true, force: true });
});

describe('three instances on one PostgreSQL database', () => {
  it('honours a key made by the CLI on every instance, and revoking it ends it everywhere', async () => {
    const made = await cliJson<AnyJson>(['keys', 'create', '--scope', 'read', '--json'], {
      env,
      dataDir: dataDirs[1],
    });
    for (const i of [0, 1, 2]) expect((await call(i, rows(), { bearer: made.key })).status).toBe(200);
    await cliJson(['keys', 'revoke', made.id, '--json'], { env, dataDir: dataDirs[2] });
    // Within a second on every instance (docs/deploy.md), as a rule within milliseconds.
    const revokedAt = Date.now();
    for (const i of [0, 1, 2]) {
      await expect
        .poll(async () => (await call(i, rows(), { bearer: made.key })).status, {
          timeout: 1000,
          interval: 20,
        })
        .toBe(401);
    }
    expect(Date.now() - revokedAt).toBeLessThan(1000);
  });

  it('gives a Free key exactly 10 answers in a burst of 40 spread over the three', async () => {
    const free = await cliJson<AnyJson>(['keys', 'create', '--scope', 'read', '--json'], {
      env,
      dataDir: dataDirs[0],
    });
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        call(n % 3, rows('?limit=1'), { bearer: free.key }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
  });

  describe('a webhook registered on one instance', () => {
    let receiver: Receiver;
    beforeAll(async () => {
      let secret = '';
      receiver = await startReceiver(() => secret);
      const res = await call(0, '/v1/webhooks', {
        method: 'POST',
        body: JSON.stringify({ url: receiver.url, spreadsheet_id: spreadsheetId, sheet_name: 'People' }),
      });
      const body = (await res.json()) as AnyJson;
      expect(res.status, JSON.stringify(body)).toBe(201);
      secret = body.secret;
    });

    it('gets exactly one delivery for an append made on another instance', async () => {
      const res = await call(1, rows(), { method: 'POST', body: JSON.stringify({ Name: 'from-1', Age: 1 }) });
      expect(res.status).toBe(201);
      await receiver.waitFor(1, 10_000);
      await new Promise((r) => setTimeout(r, 1500)); // time for a second, wrong delivery to show up
      const inserted = receiver.received.filter((r) => JSON.stringify(r.json).includes('from-1'));
      expect(inserted).toHaveLength(1);
      expect(inserted[0]!.signatureOk).toBe(true);
    });

    it('gets exactly one delivery for a save made by another program', async () => {
      const before = receiver.received.length;
      await outsideSave('outside-1');
      await receiver.waitFor(before + 1, 15_000);
      await new Promise((r) => setTimeout(r, 2000));
      const seen = receiver.received.filter((r) => JSON.stringify(r.json).includes('outside-1'));
      expect(seen).toHaveLength(1);
    });

    it('reads the same change feed on every instance', async () => {
      const feed = `/v1/spreadsheets/${spreadsheetId}/rows?sheet=People&updated_since=1970-01-01T00:00:00Z`;
      const answers = await Promise.all([0, 1, 2].map((i) => call(i, feed)));
      const feeds = await Promise.all(answers.map((r) => r.json() as Promise<AnyJson>));
      expect(
        answers.map((r) => r.status),
        JSON.stringify(feeds[0]),
      ).toEqual([200, 200, 200]);
      expect(feeds[0].data.length).toBeGreaterThan(0);
      expect(feeds[1]).toEqual(feeds[0]);
      expect(feeds[2]).toEqual(feeds[0]);
    });

    it('loses no acknowledged row and no notification when the owner is SIGKILLed under write load', async () => {
      const pid = await ownerPid();
      expect(pid).not.toBeNull();
      const victim = instances.findIndex((s) => s?.child.pid === pid);
      expect(victim).toBeGreaterThanOrEqual(0);
      const writers = [0, 1, 2].filter((i) => i !== victim);
      const acknowledged: string[] = [];
      let n = 0;
      let stop = false;
      const load = writers.map(async (i) => {
        while (!stop) {
          const name = `load-${i}-${n++}`;
          const res = await call(i, rows(), {
            method: 'POST',
            body: JSON.stringify({ Name: name, Age: 2 }),
          }).catch(() => null);
          if (res?.status === 201) acknowledged.push(name);
        }
      });
      await new Promise((r) => setTimeout(r, 800));
      await instances[victim]!.stop('SIGKILL');
      instances[victim] = null;
      await new Promise((r) => setTimeout(r, 1500));
      stop = true;
      await Promise.all(load);
      expect(acknowledged.length).toBeGreaterThan(3);
      // Every acknowledged row is in the file, read by an independent reader.
      const names = await namesInFile();
      for (const name of acknowledged) expect(names).toContain(name);
      // Every acknowledged row was notified (at least once).
      await expect
        .poll(
          () =>
            acknowledged.filter(
              (name) => !receiver.received.some((r) => JSON.stringify(r.json).includes(name)),
            ),
          { timeout: 20_000, interval: 250 },
        )
        .toEqual([]);
      // A surviving instance takes the lease and delivers the next outside save within the TTL plus 5 s.
      const before = receiver.received.length;
      const saved = Date.now();
      await outsideSave('after-failover');
      await receiver.waitFor(before + 1, TTL_MS + 5000);
      expect(Date.now() - saved).toBeLessThan(TTL_MS + 5000);
      expect(receiver.received.some((r) => JSON.stringify(r.json).includes('after-failover'))).toBe(true);
    }, 60_000);
  });
});

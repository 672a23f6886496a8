/**
 * The cheap Drive check behind a Google source's version, against the Sheets fake over HTTP: how old the copy is
 * counts from the request that answered, so a check that succeeded only after retries is as fresh as its last
 * attempt, not as old as its first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../server/errors.ts';
import { googleClients } from '../../../server/sources/google/client.ts';
import { unavailable } from '../../../server/sources/google/errors.ts';
import { Freshness } from '../../../server/sources/google/freshness.ts';
import { type GoogleAccount, startGoogleAccount } from '../../helpers/google.ts';
import { ManualTimers } from '../../helpers/manual-timers.ts';

let account: GoogleAccount;
beforeAll(async () => {
  account = await startGoogleAccount();
});
afterAll(async () => {
  await account.close();
});

describe('Freshness', () => {
  it('after retried failures, counts the age of the copy from the attempt that answered', async () => {
    const id = await account.createSpreadsheet('Barn', ['Item'], [['Hay']]);
    let now = 1_000_000;
    const freshness = new Freshness(googleClients(account.options()), id, {
      now: () => now,
      // Each back-off moves the service clock on by 3 s, as a slow recovery of Google's would.
      retry: {
        attempts: 4,
        baseMs: 1,
        sleep: async () => {
          now += 3_000;
        },
      },
    });
    account.fake.switches.failNext(2, 503);
    const version = await freshness.check();
    expect(version).toMatch(/@/);
    const check = freshness.lastCheck();
    expect(check.failing).toBe(false);
    // Two failures, two back-offs: the answer came from the request sent 6 s after the first.
    expect(check.at).toBe(1_006_000);
  });

  it('says it is failing while Google is unavailable, and answers the last version it knew', async () => {
    const id = await account.createSpreadsheet('Loft', ['Item'], [['Rope']]);
    let now = 2_000_000;
    const freshness = new Freshness(googleClients(account.options()), id, {
      now: () => now,
      maxAgeMs: 5_000,
      retry: { attempts: 2, baseMs: 1, sleep: async () => {} },
    });
    const known = await freshness.check();
    account.fake.switches.failNext(10, 503);
    now += 10_000;
    expect(await freshness.current()).toBe(known);
    expect(freshness.lastCheck()).toMatchObject({ failing: true, at: 2_000_000 });
    account.fake.switches.clearFailures();
  });

  it('checks for a watcher with an interest only while a webhook subscribes or someone read in the last 10 minutes', async () => {
    const id = await account.createSpreadsheet('Shed', ['Item'], [['Saw']]);
    const timers = new ManualTimers();
    timers.now = 3_000_000;
    const clients = googleClients(account.options());
    // The real Drive client, counted: every check this test causes is one request to the fake.
    const asked: Promise<unknown>[] = [];
    const get = clients.drive.files.get.bind(clients.drive.files);
    clients.drive.files.get = ((...args: Parameters<typeof get>) => {
      const answer = get(...args) as unknown as Promise<unknown>;
      asked.push(answer);
      return answer;
    }) as typeof get;
    const settled = async () => {
      await Promise.allSettled(asked);
      await new Promise((resolve) => setImmediate(resolve));
    };
    const freshness = new Freshness(clients, id, { timers, now: () => timers.now, pollMs: 30_000 });
    let subscribed = false;
    const unwatch = freshness.watch(() => {}, { subscribed: () => subscribed });

    // Nobody reads, nothing subscribes: five poll times pass without a request.
    timers.advance(150_000);
    await settled();
    expect(asked).toHaveLength(0);

    // A read checks, and makes the next polls worth it for 10 minutes.
    await freshness.current();
    expect(asked).toHaveLength(1);
    for (let i = 0; i < 25; i++) {
      timers.advance(30_000);
      await settled();
    }
    // 12.5 minutes of poll times: the 19 polls within 10 minutes of the read checked, then they stopped.
    expect(asked).toHaveLength(1 + 19);

    // A webhook subscribes: checks go on without readers.
    subscribed = true;
    timers.advance(30_000);
    await settled();
    expect(asked).toHaveLength(21);

    // A watcher that says nothing of its interest is always checked for.
    subscribed = false;
    unwatch();
    freshness.watch(() => {});
    timers.advance(30_000);
    await settled();
    expect(asked).toHaveLength(22);
    freshness.stop();
  });

  it("asks Sheets to explain Drive's 404 once per poll interval, and forgets the answer once Drive sees the file", async () => {
    const id = await account.createSpreadsheet('Vault', ['Item'], [['Key']]);
    let now = 4_000_000;
    const explained: string[] = [];
    const denied = new AppError('upstream_error', 'the account may not open it', {
      reason: 'google_access_denied',
    });
    const freshness = new Freshness(googleClients(account.options()), id, {
      now: () => now,
      pollMs: 30_000,
      retry: { attempts: 1, baseMs: 1 },
      explainNotFound: async (driveSays) => {
        explained.push(driveSays.code);
        return denied;
      },
    });
    const known = await freshness.check();
    account.fake.store.denied.add(id);
    try {
      // Drive hides the file behind its 404 of a missing one: every check answers what Sheets said instead.
      for (let i = 0; i < 3; i++) await expect(freshness.check()).rejects.toBe(denied);
      expect(explained).toEqual(['spreadsheet_not_found']);
      expect(freshness.lastCheck()).toMatchObject({ version: known, failing: true });
      now += 30_000;
      await expect(freshness.check()).rejects.toBe(denied);
      expect(explained).toHaveLength(2);

      account.fake.store.denied.delete(id);
      expect(await freshness.check()).toBe(known);
      account.fake.store.denied.add(id);
      await expect(freshness.check()).rejects.toBe(denied);
      expect(explained).toHaveLength(3);
    } finally {
      account.fake.store.denied.delete(id);
    }
  });

  it('keeps no explanation that says Google could not be asked', async () => {
    const id = await account.createSpreadsheet('Cellar', ['Item'], [['Wine']]);
    let asked = 0;
    const freshness = new Freshness(googleClients(account.options()), id, {
      retry: { attempts: 1, baseMs: 1 },
      explainNotFound: async () => {
        asked++;
        return unavailable();
      },
    });
    account.fake.store.denied.add(id);
    try {
      await expect(freshness.check()).rejects.toMatchObject({ code: 'upstream_unavailable' });
      await expect(freshness.check()).rejects.toMatchObject({ code: 'upstream_unavailable' });
      expect(asked).toBe(2);
    } finally {
      account.fake.store.denied.delete(id);
    }
  });
});

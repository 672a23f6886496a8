/**
 * The cheap Drive check behind a Google source's version, against the Sheets fake over HTTP: how old the copy is
 * counts from the request that answered, so a check that succeeded only after retries is as fresh as its last
 * attempt, not as old as its first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleClients } from '../../server/sources/google/client.ts';
import { Freshness } from '../../server/sources/google/freshness.ts';
import { type GoogleAccount, startGoogleAccount } from '../helpers/google.ts';

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
});

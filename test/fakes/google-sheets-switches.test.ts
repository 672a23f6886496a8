// The fake's test switches: scheduled 429/5xx failures, latency, per-user per-minute quota
// (injected clock), and the 403 for a call without credentials.
import { sheets as sheetsApi } from '@googleapis/sheets';
import { OAuth2Client } from 'google-auth-library';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeGoogle, type FakeGoogleOptions, startFakeGoogle } from './google-sheets/server.ts';

let fake: FakeGoogle | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(options: FakeGoogleOptions = {}) {
  fake = await startFakeGoogle(options);
  const token = fake.oauth.issue().access_token;
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${(fake as FakeGoogle).url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...init.headers },
    });
  const created = await call('/v4/spreadsheets', {
    method: 'POST',
    body: '{}',
    headers: { 'content-type': 'application/json' },
  });
  const { spreadsheetId } = (await created.json()) as { spreadsheetId: string };
  return { fake, token, call, spreadsheetId };
}

describe('Google fake: switches', () => {
  it('fails the next N calls with 429 RESOURCE_EXHAUSTED, then answers normally (admin endpoint)', async () => {
    const { fake, call, spreadsheetId } = await start();
    const set = await fetch(`${fake.url}/__fake/fail`, {
      method: 'POST',
      body: JSON.stringify({ count: 2, status: 429 }),
    });
    expect(set.status).toBe(200);
    const first = await call(`/v4/spreadsheets/${spreadsheetId}`);
    expect(first.status).toBe(429);
    expect(await first.json()).toEqual({
      error: {
        code: 429,
        message: 'Resource has been exhausted (e.g. check quota).',
        status: 'RESOURCE_EXHAUSTED',
      },
    });
    expect((await call(`/v4/spreadsheets/${spreadsheetId}`)).status).toBe(429);
    expect((await call(`/v4/spreadsheets/${spreadsheetId}`)).status).toBe(200);
  });

  it("503s are retried by Google's client for GETs and surface for POSTs", async () => {
    const { fake, token, spreadsheetId } = await start();
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token: token, expiry_date: Date.now() + 3_600_000 });
    const sheets = sheetsApi({ version: 'v4', auth, rootUrl: `${fake.url}/` });
    fake.switches.failNext(2, 503);
    const got = await sheets.spreadsheets.values.get({ spreadsheetId, range: 'A1' });
    expect(got.status).toBe(200);
    fake.switches.failNext(1, 500);
    const post = await sheets.spreadsheets.values
      .append({ spreadsheetId, range: 'A1', valueInputOption: 'RAW', requestBody: { values: [[1]] } })
      .catch((e) => e);
    expect(post.status).toBe(500);
    expect(post.response.data.error).toMatchObject({ code: 500, status: 'INTERNAL' });
  });

  it('adds latency to API calls', async () => {
    const { fake, call, spreadsheetId } = await start();
    fake.switches.latencyMs = 200;
    const started = performance.now();
    expect((await call(`/v4/spreadsheets/${spreadsheetId}/values/A1`)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('counts reads and writes per user per minute and answers 429 beyond the limit', async () => {
    let now = Date.UTC(2026, 0, 1, 12, 0, 0);
    const { fake, call, spreadsheetId } = await start({ clock: () => now });
    fake.switches.quota = { readsPerMinute: 3, writesPerMinute: 1 };
    for (let i = 0; i < 3; i++)
      expect((await call(`/v4/spreadsheets/${spreadsheetId}/values/A1`)).status).toBe(200);
    const over = await call(`/v4/spreadsheets/${spreadsheetId}/values/A1`);
    expect(over.status).toBe(429);
    const body = (await over.json()) as {
      error: { status: string; message: string; details: { reason: string }[] };
    };
    expect(body.error.status).toBe('RESOURCE_EXHAUSTED');
    expect(body.error.message).toContain(
      "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user'",
    );
    expect(body.error.details[0]?.reason).toBe('RATE_LIMIT_EXCEEDED');
    // Writes have their own bucket.
    const write = () => call(`/v4/spreadsheets/${spreadsheetId}/values/A1:clear`, { method: 'POST' });
    expect((await write()).status).toBe(200);
    expect((await write()).status).toBe(429);
    // A new minute refills both.
    now += 60_000;
    expect((await call(`/v4/spreadsheets/${spreadsheetId}/values/A1`)).status).toBe(200);
    expect((await write()).status).toBe(200);
  });

  it('answers a call without credentials with 403 PERMISSION_DENIED', async () => {
    const { fake, spreadsheetId } = await start();
    const res = await fetch(`${fake.url}/v4/spreadsheets/${spreadsheetId}`);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { status: string } }).error.status).toBe('PERMISSION_DENIED');
  });
});

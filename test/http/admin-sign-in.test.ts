/**
 * Signing in to the admin API through real HTTP (a real server on a temp data dir, the clock injected so a code
 * can expire without waiting): a one-use sign-in code, good for a minute, traded for a session; sessions end at
 * sign-out and at a rotation of the admin token, which also ends the old token and every unused code.
 */
import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SIGN_IN_CODE_TTL_MS } from '../../server/http/admin-access.ts';
import { SECRET_NAMES } from '../../server/secrets/provider.ts';
import { type Harness, startHarness } from '../helpers/harness.ts';

let h: Harness;
let now: number;

beforeEach(async () => {
  now = Date.UTC(2026, 0, 5, 12, 0, 0);
  h = await startHarness({ clock: () => new Date(now) });
});
afterEach(async () => {
  await h.close();
});

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked by assertions
type Body = any;

async function call(
  method: string,
  path: string,
  init: { bearer?: string | null; body?: unknown } = {},
): Promise<{ status: number; body: Body }> {
  const res = await h.fetch(path, {
    method,
    auth: init.bearer === undefined ? h.context.adminToken : init.bearer,
    ...(init.body !== undefined
      ? { body: JSON.stringify(init.body), headers: { 'content-type': 'application/json' } }
      : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const newCode = async (): Promise<string> => {
  const res = await call('POST', '/admin/sign-in-codes');
  expect(res.status).toBe(201);
  return res.body.code;
};
const signIn = (code: string) => call('POST', '/admin/session', { bearer: null, body: { code } });

describe('sign-in codes', () => {
  it('are minted only with admin credentials, and expire a minute later', async () => {
    expect((await call('POST', '/admin/sign-in-codes', { bearer: null })).status).toBe(401);
    expect((await call('POST', '/admin/sign-in-codes', { bearer: 'spa_wrong' })).status).toBe(401);
    const res = await call('POST', '/admin/sign-in-codes');
    expect(res.status).toBe(201);
    expect(res.body.code).toMatch(/^spc_[A-Za-z0-9_-]{32}$/);
    expect(Date.parse(res.body.expires_at)).toBe(now + SIGN_IN_CODE_TTL_MS);
    expect(SIGN_IN_CODE_TTL_MS).toBeLessThanOrEqual(60_000);
  });

  it('signs in once: the session opens /admin, the same code again signs nobody in', async () => {
    const code = await newCode();
    const first = await signIn(code);
    expect(first.status).toBe(201);
    const session: string = first.body.session;
    expect(session).toMatch(/^sps_/);
    expect(session).not.toBe(h.context.adminToken);
    expect((await call('GET', '/admin/keys', { bearer: session })).status).toBe(200);

    const again = await signIn(code);
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('unauthorized');
    expect(again.body.error.message).toMatch(/expired or was used/);
    // A code is not a credential of its own.
    expect((await call('GET', '/admin/keys', { bearer: code })).status).toBe(401);
  });

  it('works until its minute is up, and not after', async () => {
    const early = await newCode();
    const late = await newCode();
    now += SIGN_IN_CODE_TTL_MS - 1;
    expect((await signIn(early)).status).toBe(201);
    now += 1;
    const expired = await signIn(late);
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toMatch(/expired or was used/);
  });

  it('refuses a body without a code unless the bearer is the admin token itself', async () => {
    expect((await call('POST', '/admin/session', { bearer: null })).status).toBe(401);
    expect((await call('POST', '/admin/session', { bearer: null, body: { code: 42 } })).status).toBe(400);
    expect((await call('POST', '/admin/session', { bearer: null, body: { token: 'x' } })).status).toBe(400);
    const session = (await signIn(await newCode())).body.session;
    // A session cannot open more sessions by itself; the admin token can (the page's "paste the token" form).
    expect((await call('POST', '/admin/session', { bearer: session })).status).toBe(401);
    // A cross-site form cannot send JSON: a code in any other body is refused before it is read.
    const form = await h.fetch('/admin/session', {
      method: 'POST',
      auth: null,
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ code: await newCode() }),
    });
    expect(form.status).toBe(415);
    const byToken = await call('POST', '/admin/session');
    expect(byToken.status).toBe(201);
    expect((await call('GET', '/admin/keys', { bearer: byToken.body.session })).status).toBe(200);
  });

  it('answers only on loopback names, like the rest of /admin', async () => {
    const code = await newCode();
    // fetch() sets Host itself; a raw request can name another.
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${h.url}/admin/session`,
        { method: 'POST', headers: { host: 'sheets.example.com', 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ code }));
    });
    expect(status).toBe(403);
    // The refused attempt spent nothing: the code still signs in from loopback.
    expect((await signIn(code)).status).toBe(201);
  });
});

describe('sessions', () => {
  it('end at sign-out', async () => {
    const session = (await signIn(await newCode())).body.session;
    expect((await call('DELETE', '/admin/session', { bearer: session })).status).toBe(204);
    expect((await call('GET', '/admin/keys', { bearer: session })).status).toBe(401);
    expect((await call('GET', '/admin/keys')).status).toBe(200);
  });
});

describe('rotating the admin token', () => {
  it('ends the old token, every session and every unused code; the new token works and is stored', async () => {
    const oldToken = h.context.adminToken;
    const session = (await signIn(await newCode())).body.session;
    const unused = await newCode();
    const rotated = await call('POST', '/admin/admin-token/rotate', { bearer: session });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ rotated: true });
    expect(JSON.stringify(rotated.body)).not.toContain('spa_');

    const newToken = h.context.adminToken;
    expect(newToken).not.toBe(oldToken);
    expect(h.context.secrets.get(SECRET_NAMES.adminToken)).toBe(newToken);
    expect((await call('GET', '/admin/keys', { bearer: oldToken })).status).toBe(401);
    expect((await call('GET', '/admin/keys', { bearer: session })).status).toBe(401);
    expect((await signIn(unused)).status).toBe(401);
    expect((await call('GET', '/admin/keys', { bearer: newToken })).status).toBe(200);
    expect((await signIn(await newCode())).status).toBe(201);
  });
});

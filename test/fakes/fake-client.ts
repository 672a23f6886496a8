/**
 * A started Sheets/Drive fake and a caller of its HTTP API with a valid token: what the suites that test the fake
 * itself over HTTP share.
 */
import { type FakeGoogle, startFakeGoogle } from './google-sheets/server.ts';

export interface FakeClient {
  fake: FakeGoogle;
  /** One request with the token; the answer's JSON (undefined for an empty body). */
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked by assertions, not types
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
}

export async function startFakeClient(): Promise<FakeClient> {
  const fake = await startFakeGoogle();
  const token = fake.oauth.issue().access_token;
  return {
    fake,
    async call(method, path, body) {
      const res = await fetch(`${fake.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : undefined };
    },
  };
}

/**
 * The DNS-rebinding guard parses `Host` whole: a header that only starts like a loopback name is refused,
 * on the API and on the admin surface alike.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostnameOf } from '../../server/lib/host-names.ts';
import { type Harness, startHarness } from '../helpers/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** A raw request, so the Host header goes out exactly as written. */
function statusWithHost(
  pathName: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const { port } = new URL(h.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: pathName, headers: { ...headers, host } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const TRICKS = [
  '127.0.0.1:80@evil.example',
  '[::1]evil.example',
  'localhost:abc',
  'localhost:99999',
  'localhost.evil.example',
  '127.0.0.1.evil.example',
  '127.0.0.300',
  'user@localhost',
  'localhost/evil',
  '[::1',
];

describe('Host header guard', () => {
  it('refuses hosts that only look like loopback, on the API and the admin surface', async () => {
    for (const host of TRICKS) {
      expect(await statusWithHost('/openapi.json', host), host).toBe(403);
      expect(
        await statusWithHost('/admin/keys', host, { authorization: `Bearer ${h.context.adminToken}` }),
        host,
      ).toBe(403);
    }
  });

  it('admits real loopback names with or without a port', async () => {
    for (const host of [
      'localhost',
      'localhost:8787',
      'LocalHost:1',
      'app.localhost',
      '127.0.0.1',
      '127.5.6.7:80',
      '[::1]',
      '[::1]:8787',
    ]) {
      expect(await statusWithHost('/openapi.json', host), host).toBe(200);
    }
  });

  it('parses the header strictly', () => {
    for (const host of TRICKS) {
      const name = hostnameOf(host);
      expect(name === null || !['localhost', '127.0.0.1', '[::1]'].includes(name), host).toBe(true);
    }
    expect(hostnameOf('Example.COM:443')).toBe('example.com');
    expect(hostnameOf('[::1]:8787')).toBe('[::1]');
  });
});

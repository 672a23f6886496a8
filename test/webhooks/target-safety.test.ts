import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../server/errors.ts';
import {
  type AddressKind,
  classifyAddress,
  isAddressAllowed,
  safeLookup,
  validateWebhookUrl,
} from '../../server/webhooks/target-safety.ts';

describe('classifyAddress', () => {
  const table: Array<[string, AddressKind]> = [
    // loopback
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    // link-local, always refused
    ['169.254.169.254', 'link_local'],
    ['169.254.0.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf::1', 'link_local'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['::ffff:a9fe:a9fe', 'link_local'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'link_local'],
    ['::ffff:0:a9fe:a9fe', 'link_local'],
    ['64:ff9b::a9fe:a9fe', 'link_local'],
    ['64:ff9b::169.254.169.254', 'link_local'],
    ['2002:a9fe:a9fe::1', 'link_local'],
    ['::169.254.169.254', 'link_local'],
    // metadata / unspecified / multicast / broadcast / reserved
    ['100.100.100.200', 'forbidden'],
    ['::ffff:100.100.100.200', 'forbidden'],
    ['fd00:ec2::254', 'forbidden'],
    ['FD00:EC2:0:0:0:0:0:254', 'forbidden'],
    ['0.0.0.0', 'forbidden'],
    ['0.1.2.3', 'forbidden'],
    ['::', 'forbidden'],
    ['::ffff:0.0.0.0', 'forbidden'],
    ['224.0.0.1', 'forbidden'],
    ['239.255.255.250', 'forbidden'],
    ['255.255.255.255', 'forbidden'],
    ['240.0.0.1', 'forbidden'],
    ['ff02::1', 'forbidden'],
    ['::ffff:224.0.0.1', 'forbidden'],
    // not an IP at all
    ['localhost', 'forbidden'],
    ['', 'forbidden'],
    ['1.2.3', 'forbidden'],
    ['256.1.1.1', 'forbidden'],
    // private (LAN)
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.10', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.254', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:c0a8:101', 'private'],
    ['2002:c0a8:0101::', 'private'],
    // public
    ['8.8.8.8', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.1', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['169.253.255.255', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['2002:0808:0808::1', 'public'],
  ];
  it.each(table)('%s -> %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });
});

describe('isAddressAllowed', () => {
  const https = { allowLan: false, loopbackOnly: false };
  const httpsLan = { allowLan: true, loopbackOnly: false };
  const http = { allowLan: true, loopbackOnly: true };
  it('applies the policy per kind', () => {
    expect(isAddressAllowed('127.0.0.1', http)).toBe(true);
    expect(isAddressAllowed('::1', http)).toBe(true);
    expect(isAddressAllowed('8.8.8.8', http)).toBe(false);
    expect(isAddressAllowed('192.168.1.2', http)).toBe(false);
    expect(isAddressAllowed('8.8.8.8', https)).toBe(true);
    expect(isAddressAllowed('127.0.0.1', https)).toBe(true);
    expect(isAddressAllowed('192.168.1.2', https)).toBe(false);
    expect(isAddressAllowed('192.168.1.2', httpsLan)).toBe(true);
    expect(isAddressAllowed('fd00::1', httpsLan)).toBe(true);
    for (const always of [
      '169.254.169.254',
      'fe80::1',
      '100.100.100.200',
      'fd00:ec2::254',
      '0.0.0.0',
      '::',
    ]) {
      expect(isAddressAllowed(always, httpsLan)).toBe(false);
    }
  });
});

describe('validateWebhookUrl', () => {
  const accepted: Array<[string, boolean, string]> = [
    ['https://hooks.example.com/in', false, 'https://hooks.example.com/in'],
    ['https://hooks.example.com:8443/a?b=c#frag', false, 'https://hooks.example.com:8443/a?b=c'],
    ['http://localhost:5678/webhook/abc', false, 'http://localhost:5678/webhook/abc'],
    ['http://LOCALHOST./x', false, 'http://localhost./x'],
    ['http://127.0.0.1:3000/', false, 'http://127.0.0.1:3000/'],
    ['http://[::1]:3000/', false, 'http://[::1]:3000/'],
    ['http://[::ffff:127.0.0.1]/', false, 'http://[::ffff:7f00:1]/'],
    // Node's WHATWG URL parser normalises decimal / hex / octal / short IPv4 forms to dotted quads.
    ['http://2130706433/', false, 'http://127.0.0.1/'],
    ['http://0x7f.1/', false, 'http://127.0.0.1/'],
    ['http://0177.0.0.1/', false, 'http://127.0.0.1/'],
    ['http://017700000001/', false, 'http://127.0.0.1/'],
    ['http://127.1/', false, 'http://127.0.0.1/'],
    ['https://127.0.0.1/', false, 'https://127.0.0.1/'],
    ['https://8.8.8.8/', false, 'https://8.8.8.8/'],
    ['https://192.168.1.20/hook', true, 'https://192.168.1.20/hook'],
    ['https://[fd12::1]/hook', true, 'https://[fd12::1]/hook'],
    ['https://100.64.1.1/', true, 'https://100.64.1.1/'],
  ];
  it.each(accepted)('accepts %s (allowLan %s)', (raw, allowLan, href) => {
    expect(validateWebhookUrl(raw, { allowLan }).url.href).toBe(href);
  });

  const refused: Array<[unknown, boolean, RegExp]> = [
    ['', false, /non-empty/],
    [42, false, /string/],
    ['not a url', false, /absolute/],
    ['/relative/path', false, /absolute/],
    ['ftp://example.com/', false, /https/],
    ['file:///etc/passwd', false, /https/],
    ['javascript:alert(1)', false, /https/],
    [`https://example.com/${'a'.repeat(2100)}`, false, /2048/],
    ['https://user:pass@example.com/', false, /credentials/],
    ['https://user@example.com/', false, /credentials/],
    ['http://localhost:0/', false, /port 0/],
    // http only to loopback
    ['http://example.com/', false, /loopback/],
    ['http://example.com/', true, /loopback/],
    ['http://8.8.8.8/', true, /loopback/],
    ['http://192.168.1.20/', true, /http is loopback-only/],
    ['http://localhost.example.com/', false, /loopback/],
    // link-local and metadata: always, whatever allowLan says, in every spelling
    ['https://169.254.169.254/latest/meta-data/', true, /link-local/],
    ['http://169.254.169.254/', true, /link-local/],
    ['https://0xa9fea9fe/', true, /link-local address \(169\.254\.169\.254\)/],
    ['https://2852039166/', true, /link-local address \(169\.254\.169\.254\)/],
    ['https://0251.0376.0251.0376/', true, /link-local address \(169\.254\.169\.254\)/],
    ['https://[::ffff:169.254.169.254]/', true, /link-local/],
    ['https://[::ffff:a9fe:a9fe]/', true, /link-local/],
    ['https://[fe80::1]/', true, /link-local/],
    ['https://100.100.100.200/', true, /metadata/],
    ['https://[fd00:ec2::254]/', true, /metadata/],
    ['https://metadata.google.internal/computeMetadata/v1/', true, /metadata/],
    ['https://0.0.0.0/', true, /unspecified/],
    ['https://0/', true, /unspecified/],
    ['https://[::]/', true, /unspecified/],
    ['https://224.0.0.1/', true, /multicast/],
    ['https://255.255.255.255/', true, /reserved/],
    // private without allowLan
    ['https://10.0.0.5/', false, /--allow-lan-webhooks/],
    ['https://172.16.0.1/', false, /--allow-lan-webhooks/],
    ['https://192.168.0.1/', false, /--allow-lan-webhooks/],
    ['https://100.64.0.1/', false, /--allow-lan-webhooks/],
    ['https://[fc00::1]/', false, /--allow-lan-webhooks/],
    ['https://[::ffff:10.0.0.5]/', false, /--allow-lan-webhooks/],
    ['https://0x0a000005/', false, /--allow-lan-webhooks/],
  ];
  it.each(refused)('refuses %s (allowLan %s)', (raw, allowLan, message) => {
    let caught: unknown;
    try {
      validateWebhookUrl(raw, { allowLan });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    const err = caught as AppError;
    expect(err.code).toBe('invalid_body');
    expect(err.status).toBe(400);
    expect(err.details).toEqual({ field: 'url' });
    expect(err.message).toMatch(message);
  });
});

/** A dns.lookup-shaped resolver answering from a table (what a hostile or rebinding DNS could return). */
function fakeResolver(table: Record<string, string[]>, calls: string[] = []): LookupFunction {
  return (hostname, _options, callback) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) {
      const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      callback(err, []);
      return;
    }
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
}

function lookupAll(
  fn: LookupFunction,
  host: string,
): Promise<{ err: NodeJS.ErrnoException | null; addresses: LookupAddress[] }> {
  return new Promise((resolve) => {
    fn(host, { all: true }, (err, addresses) => resolve({ err, addresses: addresses as LookupAddress[] }));
  });
}

function lookupOne(
  fn: LookupFunction,
  host: string,
): Promise<{ err: NodeJS.ErrnoException | null; address: string; family: number | undefined }> {
  return new Promise((resolve) => {
    fn(host, { family: 0 }, (err, address, family) => resolve({ err, address: address as string, family }));
  });
}

describe('safeLookup', () => {
  const table = {
    localhost: ['169.254.169.254'],
    'rebind.example': ['10.0.0.7'],
    'mixed.example': ['10.0.0.7', '93.184.216.34'],
    'good.example': ['93.184.216.34', '2606:2800:220:1::'],
    'local.example': ['::1', '127.0.0.1'],
    'mapped.example': ['::ffff:169.254.169.254'],
    'lan.example': ['192.168.1.5'],
  };

  it('refuses a localhost-named target that resolves to a metadata address', async () => {
    const lookup = safeLookup({ allowLan: true, loopbackOnly: true, lookup: fakeResolver(table) });
    const { err } = await lookupAll(lookup, 'localhost');
    expect(err?.code).toBe('EADDRNOTALLOWED');
    expect(err?.message).toBe('address not allowed: 169.254.169.254');
    const one = await lookupOne(lookup, 'localhost');
    expect(one.err?.code).toBe('EADDRNOTALLOWED');
  });

  it('refuses IPv4-mapped forbidden answers', async () => {
    const lookup = safeLookup({ allowLan: true, loopbackOnly: false, lookup: fakeResolver(table) });
    expect((await lookupAll(lookup, 'mapped.example')).err?.message).toBe(
      'address not allowed: ::ffff:169.254.169.254',
    );
  });

  it('checks the answer at lookup time, not the name: a public-looking name resolving to the LAN is refused', async () => {
    const lookup = safeLookup({ allowLan: false, loopbackOnly: false, lookup: fakeResolver(table) });
    expect((await lookupAll(lookup, 'rebind.example')).err?.code).toBe('EADDRNOTALLOWED');
    const withLan = safeLookup({ allowLan: true, loopbackOnly: false, lookup: fakeResolver(table) });
    expect((await lookupAll(withLan, 'rebind.example')).addresses).toEqual([
      { address: '10.0.0.7', family: 4 },
    ]);
  });

  it('keeps only the allowed answers of a mixed set', async () => {
    const lookup = safeLookup({ allowLan: false, loopbackOnly: false, lookup: fakeResolver(table) });
    expect((await lookupAll(lookup, 'mixed.example')).addresses).toEqual([
      { address: '93.184.216.34', family: 4 },
    ]);
    expect(await lookupOne(lookup, 'mixed.example')).toEqual({
      err: null,
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('http (loopbackOnly) refuses a name resolving to a public or LAN address, even with allowLan', async () => {
    const lookup = safeLookup({ allowLan: true, loopbackOnly: true, lookup: fakeResolver(table) });
    expect((await lookupAll(lookup, 'good.example')).err?.message).toBe('address not allowed: 93.184.216.34');
    expect((await lookupAll(lookup, 'lan.example')).err?.code).toBe('EADDRNOTALLOWED');
    expect((await lookupAll(lookup, 'local.example')).addresses).toHaveLength(2);
  });

  it('passes resolver errors through', async () => {
    const lookup = safeLookup({ allowLan: false, loopbackOnly: false, lookup: fakeResolver(table) });
    expect((await lookupAll(lookup, 'nowhere.invalid')).err?.code).toBe('ENOTFOUND');
  });

  it('uses the system resolver by default (localhost is loopback)', async () => {
    const lookup = safeLookup({ allowLan: false, loopbackOnly: true });
    const { err, addresses } = await lookupAll(lookup, 'localhost');
    expect(err).toBeNull();
    expect(addresses.length).toBeGreaterThan(0);
    for (const a of addresses) expect(classifyAddress(a.address)).toBe('loopback');
  });
});

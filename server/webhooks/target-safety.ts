/**
 * Where a webhook may be sent (docs/api.md, "Webhook targets"). SheetPort runs on the user's own machine, so a local receiver
 * (`http://localhost:5678`, a local n8n) is a normal target; what must never be reachable is the cloud
 * metadata service and other link-local endpoints, and the LAN only when the user allowed it.
 *
 * Policy:
 * - `https` to any allowed address; `http` only to loopback (127.0.0.0/8, ::1, `localhost`).
 * - always refused: link-local (169.254.0.0/16, fe80::/10), cloud metadata endpoints, unspecified, multicast,
 *   broadcast and reserved addresses - also in their IPv4-mapped / embedded IPv6 forms;
 * - private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, ...) only with `allowLan`.
 *
 * Two checkpoints: `validateWebhookUrl` at registration (syntax, scheme, credentials, literal IP hosts) and
 * `safeLookup` + `checkAddress` when connecting, on the address actually resolved (DNS can change).
 */

import type { LookupAddress, LookupOptions } from 'node:dns';
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import { AppError } from '../errors.ts';
import { holdsSecret } from '../lib/redact-secrets.ts';

export type AddressKind = 'loopback' | 'private' | 'link_local' | 'public' | 'forbidden';

/** What a connection may reach: `loopbackOnly` is set for `http:` targets. */
export interface TargetPolicy {
  allowLan: boolean;
  loopbackOnly: boolean;
}

/**
 * The one name of the switch that lets webhooks reach private (LAN) addresses: `sheetport serve` and
 * `sheetport webhooks create` take it as this flag, and every hint names it.
 */
export const ALLOW_LAN_FLAG = '--allow-lan-webhooks';

/** The error code given to a connection refused by policy (not an OS code; chosen to look like one). */
export const ADDRESS_NOT_ALLOWED = 'EADDRNOTALLOWED';

const MAX_URL_LENGTH = 2048;

function blockList(v4: string[], v6: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const cidr of v4) addCidr(list, cidr, 'ipv4');
  for (const cidr of v6) addCidr(list, cidr, 'ipv6');
  return list;
}

function addCidr(list: net.BlockList, cidr: string, type: 'ipv4' | 'ipv6'): void {
  const [address, bits] = cidr.split('/');
  if (bits === undefined) list.addAddress(address!, type);
  else list.addSubnet(address!, Number(bits), type);
}

// Checked in this order; the first match wins. IPv6 forms that embed an IPv4 address are classified by the
// IPv4 address they carry (see embeddedIpv4), so the IPv4 tables below cover `::ffff:169.254.169.254` too.
const FORBIDDEN = blockList(
  [
    '100.100.100.200', // Alibaba Cloud metadata
    '168.63.129.16', // Azure platform (wire server / IMDS relay)
    '192.0.0.192', // Oracle Cloud legacy metadata
    '0.0.0.0/8', // "this network"; 0.0.0.0 reaches the local host on Linux
    '224.0.0.0/4', // multicast
    '240.0.0.0/4', // reserved, includes broadcast 255.255.255.255
  ],
  [
    'fd00:ec2::254', // AWS metadata over IPv6 (inside fc00::/7, so checked before PRIVATE)
    '::/128', // unspecified
    'ff00::/8', // multicast
  ],
);
const LOOPBACK = blockList(['127.0.0.0/8'], ['::1/128']);
const LINK_LOCAL = blockList(['169.254.0.0/16'], ['fe80::/10']);
const PRIVATE = blockList(
  [
    '10.0.0.0/8',
    '172.16.0.0/12',
    '192.168.0.0/16',
    '100.64.0.0/10', // carrier-grade NAT
    '192.0.0.0/24', // IETF protocol assignments (not globally routed)
    '198.18.0.0/15', // benchmarking
  ],
  [
    'fc00::/7', // unique local
    'fec0::/10', // deprecated site-local
    '64:ff9b:1::/48', // local-use NAT64 (RFC 8215): the IPv4 it maps to depends on the operator's prefix
  ],
);

/**
 * Classify one IP address (no brackets; an IPv6 zone id is ignored). Anything that is not an IP address is
 * `forbidden`, so a caller can never mistake garbage for a public address.
 */
export function classifyAddress(ip: string): AddressKind {
  const bare = stripZone(ip.trim());
  const version = net.isIP(bare);
  if (version === 4) return classifyV4(bare);
  if (version !== 6) return 'forbidden';
  const groups = parseIpv6(bare);
  if (!groups) return 'forbidden';
  const canonical = groupsToString(groups);
  if (FORBIDDEN.check(canonical, 'ipv6')) return 'forbidden';
  if (LOOPBACK.check(canonical, 'ipv6')) return 'loopback';
  const v4 = embeddedIpv4(groups);
  if (v4 !== null) return classifyV4(v4);
  if (LINK_LOCAL.check(canonical, 'ipv6')) return 'link_local';
  if (PRIVATE.check(canonical, 'ipv6')) return 'private';
  return 'public';
}

function classifyV4(ip: string): AddressKind {
  if (FORBIDDEN.check(ip, 'ipv4')) return 'forbidden';
  if (LOOPBACK.check(ip, 'ipv4')) return 'loopback';
  if (LINK_LOCAL.check(ip, 'ipv4')) return 'link_local';
  if (PRIVATE.check(ip, 'ipv4')) return 'private';
  return 'public';
}

/** May a connection under `policy` go to `ip`? */
export function isAddressAllowed(ip: string, policy: TargetPolicy): boolean {
  const kind = classifyAddress(ip);
  if (kind === 'loopback') return true;
  if (policy.loopbackOnly) return false;
  if (kind === 'public') return true;
  if (kind === 'private') return policy.allowLan;
  return false;
}

/** The policy for a target URL: `http:` may only reach loopback. */
export function policyFor(url: URL, allowLan: boolean): TargetPolicy {
  return { allowLan, loopbackOnly: url.protocol === 'http:' };
}

export interface AddressNotAllowedError extends NodeJS.ErrnoException {
  code: typeof ADDRESS_NOT_ALLOWED;
  address: string;
  hostname?: string;
}

export function addressNotAllowedError(ip: string, hostname?: string): AddressNotAllowedError {
  const err = new Error(`address not allowed: ${ip}`) as AddressNotAllowedError;
  err.code = ADDRESS_NOT_ALLOWED;
  err.address = ip;
  if (hostname !== undefined) err.hostname = hostname;
  return err;
}

/** URL hostname -> bare IP if it is an IP literal (`[::1]` -> `::1`), else null. */
export function literalIp(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return net.isIP(bare) !== 0 ? bare : null;
}

function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost';
}

/** Names of metadata services, refused by name at registration (their addresses are refused anyway). */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'instance-data', 'metadata']);

function invalidUrl(message: string): AppError {
  return new AppError('invalid_body', message, { field: 'url' });
}

/**
 * Registration-time check. Throws AppError('invalid_body', ..., { field: 'url' }). The returned URL has any
 * `#fragment` removed (it is never sent). Names are not resolved here: `safeLookup` checks them per connection.
 */
export function validateWebhookUrl(raw: unknown, opts: { allowLan: boolean }): { url: URL } {
  if (typeof raw !== 'string' || raw.trim() === '') throw invalidUrl('url must be a non-empty string');
  if (raw.length > MAX_URL_LENGTH) throw invalidUrl(`url must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalidUrl('url must be an absolute https:// URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalidUrl(`url must use https (got ${url.protocol.replace(/:$/, '')})`);
  }
  // It would be stored in the data dir, shown in the delivery log and sent to the receiver.
  if (holdsSecret(raw)) {
    throw invalidUrl(
      'url must not contain a SheetPort API key, admin token or webhook secret; the receiver checks the signature instead',
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw invalidUrl('url must not contain credentials (user:password@); authenticate with the signature');
  }
  if (url.hostname === '') throw invalidUrl('url must have a host');
  if (url.port === '0') throw invalidUrl('url must not use port 0');
  url.hash = '';

  const policy = policyFor(url, opts.allowLan);
  const ip = literalIp(url.hostname);
  if (ip !== null) {
    const kind = classifyAddress(ip);
    if (!isAddressAllowed(ip, policy)) throw invalidUrl(refusalMessage(ip, kind, policy));
  } else {
    const name = url.hostname.toLowerCase().replace(/\.$/, '');
    if (METADATA_NAMES.has(name)) throw invalidUrl(`url must not target a cloud metadata service (${name})`);
    if (policy.loopbackOnly && !isLocalhostName(url.hostname)) {
      throw invalidUrl(
        'url must use https; http is allowed only to a loopback host (localhost, 127.0.0.1, [::1])',
      );
    }
  }
  return { url };
}

function refusalMessage(ip: string, kind: AddressKind, policy: TargetPolicy): string {
  switch (kind) {
    case 'link_local':
      return `url must not target a link-local address (${ip})`;
    case 'forbidden':
      return `url must not target a metadata, unspecified, multicast or reserved address (${ip})`;
    case 'private':
      if (policy.loopbackOnly) return `url must use https for a LAN address (${ip}); http is loopback-only`;
      return `url targets a private network address (${ip}); LAN webhook targets are off (the service allows them when started with ${ALLOW_LAN_FLAG})`;
    default:
      return `url must use https; http is allowed only to a loopback host (got ${ip})`;
  }
}

export interface SafeLookupOptions extends TargetPolicy {
  /** The resolver to wrap (dns.lookup-shaped); tests inject one. Defaults to `dns.lookup`. */
  lookup?: LookupFunction;
}

/**
 * A `dns.lookup`-compatible function for the `lookup` option of http(s).request / net.connect: resolves the
 * name, keeps only the addresses `policy` allows, and fails with code EADDRNOTALLOWED when none is left.
 * Supports both `all: true` (what Node's happy-eyeballs connect asks for) and single-address calls.
 *
 * Node's net skips `lookup` entirely for IP-literal hosts: callers must check those with `isAddressAllowed`.
 */
export function safeLookup(opts: SafeLookupOptions): LookupFunction {
  const policy: TargetPolicy = { allowLan: opts.allowLan, loopbackOnly: opts.loopbackOnly };
  const underlying: LookupFunction = opts.lookup ?? (dns.lookup as LookupFunction);
  return (hostname, options, callback) => {
    const wantAll = options.all === true;
    const query: LookupOptions = { ...options, all: true };
    underlying(hostname, query, (err, result, family) => {
      if (err) {
        callback(err, wantAll ? [] : '', undefined);
        return;
      }
      const found: LookupAddress[] =
        typeof result === 'string' ? [{ address: result, family: family ?? net.isIP(result) }] : result;
      const allowed = found.filter((a) => isAddressAllowed(a.address, policy));
      if (allowed.length === 0) {
        const first = found[0];
        const error =
          first === undefined
            ? Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname })
            : addressNotAllowedError(first.address, hostname);
        callback(error, wantAll ? [] : '', undefined);
        return;
      }
      if (wantAll) callback(null, allowed);
      else callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

// ---- IPv6 helpers -------------------------------------------------------------------------------------------

function stripZone(ip: string): string {
  const at = ip.indexOf('%');
  return at === -1 ? ip : ip.slice(0, at);
}

/** Eight 16-bit groups of a valid IPv6 address (net.isIP already said 6), or null. */
function parseIpv6(ip: string): number[] | null {
  let text = ip.toLowerCase();
  // A trailing dotted quad (::ffff:1.2.3.4) becomes two hex groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const octets = tail.split('.').map(Number);
    if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) return null;
    const [a, b, c, d] = octets as [number, number, number, number];
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return null;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...rest];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

function groupsToString(groups: number[]): string {
  return groups.map((g) => g.toString(16)).join(':');
}

/**
 * The IPv4 address carried by an IPv6 address, for the forms that can lead to it:
 * IPv4-mapped ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96, IPv4-compatible ::/96 (deprecated),
 * the well-known NAT64 prefix 64:ff9b::/96, and 6to4 2002::/16. Null for any other address.
 */
function embeddedIpv4(g: number[]): string | null {
  const at = (i: number): number => g[i] ?? 0;
  const v4 = (hi: number, lo: number): string => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && at(5) === 0xffff) return v4(at(6), at(7)); // ::ffff:a.b.c.d
  if (zeros(0, 4) && at(4) === 0xffff && at(5) === 0) return v4(at(6), at(7)); // ::ffff:0:a.b.c.d
  if (zeros(0, 6) && (at(6) !== 0 || at(7) > 1)) return v4(at(6), at(7)); // ::a.b.c.d (not :: or ::1)
  if (at(0) === 0x64 && at(1) === 0xff9b && zeros(2, 6)) return v4(at(6), at(7)); // 64:ff9b::a.b.c.d
  if (at(0) === 0x2002) return v4(at(1), at(2)); // 6to4
  return null;
}

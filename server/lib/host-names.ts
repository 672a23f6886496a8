/**
 * Host names as the service checks them: a `Host` header parsed strictly, and which names mean this machine.
 * Pure, shared by the HTTP guards and the CLI (which picks a loopback URL for the dashboard).
 */

/**
 * RFC 9110 `Host` = uri-host [ ":" port ]: an IPv4 address, a bracketed IPv6 literal or a DNS name, then an
 * optional port of digits and nothing else. Parsed whole, so `127.0.0.1:80@evil`, `[::1]evil` or
 * `localhost:abc` are not mistaken for loopback by cutting at the first `:` or `]`.
 */
const HOST_HEADER =
  /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?)(?::(\d{0,5}))?$/;
const IPV6_LITERAL = /^\[(?:[0-9a-f]{0,4}:){2,7}(?:[0-9a-f]{0,4}|\d{1,3}(?:\.\d{1,3}){3})\]$/;

/** The last header parsed and its answer: a client sends the same `Host` on every request. */
let lastHeader: string | undefined;
let lastHostname: string | null = null;

/** `Host` without its port, lower-cased (IPv6 literals keep their brackets); null when it is not a valid host. */
export function hostnameOf(header: string | undefined): string | null {
  if (header !== lastHeader) {
    lastHostname = parseHostname(header);
    lastHeader = header;
  }
  return lastHostname;
}

function parseHostname(header: string | undefined): string | null {
  if (!header) return null;
  const match = HOST_HEADER.exec(header.trim().toLowerCase());
  if (!match) return null;
  const host = (match[1] as string).replace(/\.$/, '');
  const port = match[2];
  if (port !== undefined && port !== '' && Number(port) > 65_535) return null;
  if (host.startsWith('[')) return IPV6_LITERAL.test(host) ? host : null;
  if (/^[\d.]+$/.test(host) && !isIpv4(host)) return null; // all digits and dots: must be a real IPv4
  return host;
}

function isIpv4(host: string): boolean {
  const parts = host.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

export function isLoopbackName(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '[::1]') return true;
  return isIpv4(host) && host.startsWith('127.');
}

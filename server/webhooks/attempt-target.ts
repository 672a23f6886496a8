/**
 * Where a delivery attempt went, and what the API may show of it (docs/api.md, "Delivery log"). A key holder chooses the URL, so
 * a webhook could point at a service on the user's own machine or LAN; the delivery log must not become a window
 * onto it (reading its answers, scanning its ports). So for an attempt at a loopback or private address the API
 * shows no response excerpt and only a coarse error; the CLI and the admin surface show everything.
 *
 * The class is taken from the address the attempt actually connected to (or tried, or was refused), recorded
 * with the attempt: a public-looking name that resolves to 127.0.0.1 counts as loopback, and so does any address
 * of this machine's own network interfaces (a service bound to 0.0.0.0 answers there as on 127.0.0.1).
 */
import os from 'node:os';
import type { AttemptRecord } from '../repositories/deliveries.ts';
import { type AddressKind, classifyAddress } from './target-safety.ts';

/** An address class, or `none` when the attempt reached no address (a name that did not resolve, a bad URL). */
export type AttemptTargetKind = AddressKind | 'none';

/** The facts recorded with an attempt. `reported` undefined: the sender could not say (kind stays unknown). */
export function targetOf(reported: string | null | undefined): {
  address: string | null;
  kind: AttemptTargetKind | null;
} {
  if (reported === undefined) return { address: null, kind: null };
  if (reported === null) return { address: null, kind: 'none' };
  return { address: reported, kind: isOwnAddress(reported) ? 'loopback' : classifyAddress(reported) };
}

/** An IPv6 address without its zone (`fe80::1%eth0` -> `fe80::1`). */
function withoutZone(address: string): string {
  const zone = address.indexOf('%');
  return zone === -1 ? address : address.slice(0, zone);
}

/** Whether `ip` is an address of one of this machine's network interfaces (IPv4-mapped IPv6 included). */
export function isOwnAddress(ip: string, interfaces = os.networkInterfaces()): boolean {
  const plain = ip.toLowerCase().replace(/^::ffff:(?=\d+\.)/, '');
  return Object.values(interfaces).some((list) =>
    (list ?? []).some((i) => withoutZone(i.address.toLowerCase()) === plain),
  );
}

/**
 * May the API show this attempt's details? Only for a public address, or when no address was reached at all.
 * An unknown class (attempts recorded before classes were kept) counts as non-public.
 */
export function detailsShown(kind: string | null): boolean {
  return kind === 'public' || kind === 'none';
}

/** The coarse error the API shows for a non-public target: `connection failed`, `timed out` or `HTTP <status>`. */
export function coarseError(attempt: Pick<AttemptRecord, 'error' | 'status'>): string | null {
  if (attempt.error === null) return null;
  if (attempt.error === 'timeout') return 'timed out';
  if (attempt.status !== null && attempt.error.startsWith('HTTP ')) return `HTTP ${attempt.status}`;
  return 'connection failed';
}

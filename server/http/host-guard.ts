import type { RequestHandler } from 'express';
import { AppError } from '../errors.ts';
import { hostnameOf, isLoopbackName } from '../lib/host-names.ts';

/**
 * DNS-rebinding guard: a web page on evil.example can resolve its own name to 127.0.0.1 and make the browser
 * call us with `Host: evil.example`. Only loopback names and hosts the user configured (a tunnel) get through.
 * A function is asked on every request: the tunnel-only listener learns its public name only once the tunnel is
 * open (tunnel/switch.ts).
 */
export function hostGuard(allowedHosts: readonly string[] | (() => readonly string[])): RequestHandler {
  const fixed = typeof allowedHosts === 'function' ? null : lowerSet(allowedHosts);
  return (req, _res, next) => {
    const host = hostnameOf(req.headers.host);
    const extra = fixed ?? lowerSet((allowedHosts as () => readonly string[])());
    if (host !== null && (isLoopbackName(host) || extra.has(host))) return next();
    next(new AppError('forbidden', 'Host header not allowed: SheetPort answers only on loopback names.'));
  };
}

function lowerSet(hosts: readonly string[]): Set<string> {
  return new Set(hosts.map((h) => h.toLowerCase()));
}

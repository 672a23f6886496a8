import type { RequestHandler } from 'express';
import { AppError } from '../errors.ts';
import { hostnameOf, isLoopbackName } from '../lib/host-names.ts';

/**
 * DNS-rebinding guard: a web page on evil.example can resolve its own name to 127.0.0.1 and make the browser
 * call us with `Host: evil.example`. Only loopback names and hosts the user configured (a tunnel) get through.
 */
export function hostGuard(allowedHosts: readonly string[]): RequestHandler {
  const extra = new Set(allowedHosts.map((h) => h.toLowerCase()));
  return (req, _res, next) => {
    const host = hostnameOf(req.headers.host);
    if (host !== null && (isLoopbackName(host) || extra.has(host))) return next();
    next(new AppError('forbidden', 'Host header not allowed: SheetPort answers only on loopback names.'));
  };
}

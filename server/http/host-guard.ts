import type { RequestHandler } from 'express';
import { AppError } from '../errors.ts';

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

/** `Host` without its port, lower-cased; IPv6 literals keep their brackets. */
export function hostnameOf(header: string | undefined): string | null {
  if (!header) return null;
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end > 0 ? h.slice(0, end + 1) : null;
  }
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

export function isLoopbackName(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * When an answer may be 304 Not Modified: only when it carries an ETag. Express asks `req.fresh` before each
 * `res.send`, and its `fresh` package takes `If-None-Match: *` as a match whether or not the answer has an ETag,
 * so every GET (`/healthz`, listings, `/admin`) answered 304 with no body to a client that sent `*`. RFC 9110:
 * `*` matches any current representation, which only an answer with a validator can be said to have; a row's GET
 * (strong ETag) still answers 304 to `*` and to its ETag, and the dashboard's files under /ui have their own.
 */
import express, { type Express, type Request } from 'express';

export function freshOnlyWithEtag(app: Express): void {
  const expressFresh = Object.getOwnPropertyDescriptor(express.request, 'fresh')?.get;
  if (!expressFresh) throw new Error("Express's request has no `fresh` getter to guard.");
  Object.defineProperty(app.request, 'fresh', {
    configurable: true,
    enumerable: true,
    get(this: Request): boolean {
      return this.res?.getHeader('ETag') !== undefined && (expressFresh.call(this) as boolean);
    },
  });
}

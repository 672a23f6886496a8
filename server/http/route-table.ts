/**
 * The one table of routes: every route states its access level where it is declared, and the guards of that
 * level run before its handler. No path patterns decide who may call what.
 *
 * - `public`: anyone who passes the Host guard (the OpenAPI document).
 * - `read` / `write`: an API key; `write` needs the `read_write` scope. Handlers still check that the key may
 *   reach the spreadsheet in question (only they know which one it is).
 * - `public_read`: like `read`, but a connection its owner marked "public read" may be read without a key.
 * - `admin`: loopback and the local admin token or a dashboard session (the dashboard's API).
 * - `sign_in`: loopback only; the handler checks the sign-in code or admin token it is given (admin-sign-in.ts).
 */
import type { RequestHandler, Router } from 'express';

export type Access = 'public' | 'public_read' | 'read' | 'write' | 'admin' | 'sign_in';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteEntry {
  method: Method;
  path: string;
  access: Access;
}

export class RouteTable {
  readonly router: Router;
  readonly #guards: (access: Access) => RequestHandler[];
  readonly #admits: (entry: RouteEntry) => boolean;
  readonly entries: RouteEntry[] = [];

  /** `admits` keeps a subset of the routes (the tunnel-only app's); a route it refuses is never mounted. */
  constructor(
    router: Router,
    guards: (access: Access) => RequestHandler[],
    admits: (entry: RouteEntry) => boolean = () => true,
  ) {
    this.router = router;
    this.#guards = guards;
    this.#admits = admits;
  }

  get(path: string, access: Access, handler: RequestHandler): void {
    this.#add('get', path, access, handler);
  }
  post(path: string, access: Access, handler: RequestHandler): void {
    this.#add('post', path, access, handler);
  }
  put(path: string, access: Access, handler: RequestHandler): void {
    this.#add('put', path, access, handler);
  }
  patch(path: string, access: Access, handler: RequestHandler): void {
    this.#add('patch', path, access, handler);
  }
  delete(path: string, access: Access, handler: RequestHandler): void {
    this.#add('delete', path, access, handler);
  }

  #add(method: Method, path: string, access: Access, handler: RequestHandler): void {
    const entry = { method, path, access };
    if (!this.#admits(entry)) return;
    this.entries.push(entry);
    this.router[method](path, ...this.#guards(access), handler);
  }
}

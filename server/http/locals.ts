/**
 * What lives on `res.locals`: only what middleware outside the route pipeline reads once the pipeline is done
 * with the request: the request id (the error envelope, the request log) and the admitted key's id for the log
 * line. Who the caller is travels in the route context alone (route-table.ts `RouteContext`): handlers and
 * guards are given it, never read it from here.
 */
export interface RequestLocals {
  requestId: string;
  /** For the request log only: the id of the API key the key guard admitted (auth.ts). */
  loggedKeyId?: string;
}

export function locals(res: { locals: Record<string, unknown> }): RequestLocals {
  return res.locals as unknown as RequestLocals;
}

// /__fake/* — switches and setup for tests and the replay tool (not part of Google's API).
import { badRequest } from './errors.ts';
import { ok, type Route } from './http-types.ts';
import type { OAuthServer } from './oauth.ts';
import { newSheet, SPREADSHEET_MIME, type Store } from './store.ts';
import type { FailureStatus, Switches } from './switches.ts';

export type SeedSheet = {
  title: string;
  rowCount?: number;
  columnCount?: number;
  hidden?: boolean;
  frozenRowCount?: number;
  frozenColumnCount?: number;
};

export type SeedFile = {
  name: string;
  mimeType?: string;
  createdTime?: string;
  modifiedTime?: string;
  locale?: string;
  timeZone?: string;
  sheets?: SeedSheet[];
};

/** Creates a file as if it had existed before (given times); returns its id and sheet ids. */
export function seedFile(store: Store, seed: SeedFile): { id: string; sheetIds: number[] } {
  const file = store.createFile(seed.name, seed.mimeType ?? SPREADSHEET_MIME, seed.locale, seed.timeZone);
  if (file.book && seed.sheets && seed.sheets.length > 0) {
    file.book.sheets = seed.sheets.map((s, index) =>
      newSheet({
        sheetId: index === 0 ? 0 : 1_000_000 + index,
        title: s.title,
        index,
        ...(s.rowCount ? { rowCount: s.rowCount } : {}),
        ...(s.columnCount ? { columnCount: s.columnCount } : {}),
        ...(s.hidden ? { hidden: true } : {}),
        ...(s.frozenRowCount ? { frozenRowCount: s.frozenRowCount } : {}),
        ...(s.frozenColumnCount ? { frozenColumnCount: s.frozenColumnCount } : {}),
      }),
    );
  }
  if (seed.createdTime) file.createdTime = Date.parse(seed.createdTime);
  if (seed.modifiedTime) file.modifiedTime = Date.parse(seed.modifiedTime);
  return { id: file.id, sheetIds: file.book?.sheets.map((s) => s.sheetId) ?? [] };
}

export function adminRoutes(store: Store, switches: Switches, oauth: OAuthServer): Route[] {
  const admin = (method: string, path: string, handle: Route['handle']): Route => ({
    method,
    pattern: new RegExp(`^/__fake/${path}$`),
    quota: 'none',
    auth: false,
    handle,
  });
  return [
    admin('POST', 'fail', (req) => {
      const status = Number(req.body.status ?? 503) as FailureStatus;
      if (![429, 500, 503].includes(status)) throw badRequest('status must be 429, 500 or 503');
      switches.failNext(Number(req.body.count ?? 1), status);
      return ok({});
    }),
    admin('POST', 'latency', (req) => {
      switches.latencyMs = Number(req.body.ms ?? 0);
      return ok({});
    }),
    admin('POST', 'quota', (req) => {
      const { readsPerMinute, writesPerMinute } = req.body;
      switches.quota =
        readsPerMinute === undefined && writesPerMinute === undefined
          ? undefined
          : { readsPerMinute: Number(readsPerMinute ?? 60), writesPerMinute: Number(writesPerMinute ?? 60) };
      return ok({});
    }),
    admin('POST', 'revoke', (req) => ok({ revoked: oauth.revoke(String(req.body.token ?? '')) })),
    admin('POST', 'tokens', (req) => ok(oauth.issue(req.body.client_id as string | undefined))),
    admin('POST', 'files', (req) => ok(seedFile(store, req.body as unknown as SeedFile))),
    admin('POST', 'deny', (req) => {
      store.denied.add(String(req.body.id ?? ''));
      return ok({});
    }),
    admin('POST', 'view-only', (req) => {
      store.viewOnly.add(String(req.body.id ?? ''));
      return ok({});
    }),
    admin('POST', 'disable-api', (req) => {
      const api = String(req.body.api ?? '');
      if (api !== 'sheets' && api !== 'drive') throw badRequest('api must be sheets or drive');
      if (req.body.enabled === true) switches.disabledApis.delete(api);
      else switches.disabledApis.add(api);
      return ok({});
    }),
    admin('POST', 'refuse-consent', (req) => {
      oauth.refuseNextConsent(String(req.body.error ?? 'access_denied'));
      return ok({});
    }),
  ];
}

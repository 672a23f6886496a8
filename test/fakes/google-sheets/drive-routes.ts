// Drive v3 files: create, get, list, copy, update (rename), delete, and an empty comments list; `about`
// (who the caller is). `modifiedTime` and `version` move on every change to the file or its spreadsheet.

import { parseDriveQuery } from './drive-query.ts';
import { driveFileNotFound, GoogleError } from './errors.ts';
import { maskWith } from './fields.ts';
import { type FakeRequest, ok, type Route } from './http-types.ts';
import type { DriveFile, Store } from './store.ts';

const FILE_ID = '([^/]+)';

export function fileJson(file: DriveFile): Record<string, unknown> {
  return {
    kind: 'drive#file',
    id: file.id,
    name: file.name,
    mimeType: file.mimeType,
    trashed: false,
    createdTime: new Date(file.createdTime).toISOString(),
    modifiedTime: new Date(file.modifiedTime).toISOString(),
    version: String(file.version),
  };
}

const DEFAULT_FILE_FIELDS = 'kind,id,name,mimeType';

function fileResponse(file: DriveFile, req: FakeRequest): unknown {
  return maskWith(fileJson(file), req.query.get('fields') ?? DEFAULT_FILE_FIELDS);
}

function getFile(store: Store, id: string): DriveFile {
  const file = store.get(id);
  // Drive does not reveal files the caller cannot see: same 404 as a missing one.
  if (!file || store.denied.has(id)) throw driveFileNotFound(id);
  return file;
}

type SortKey = { key: 'modifiedTime' | 'createdTime' | 'name'; desc: boolean };

function parseOrderBy(orderBy: string | null): SortKey[] {
  // Without orderBy the fake lists the most recently modified first (what Drive returned in the recordings).
  if (!orderBy) return [{ key: 'modifiedTime', desc: true }];
  return orderBy.split(',').map((part) => {
    const [key = '', direction] = part.trim().split(/\s+/);
    const known = key === 'modifiedTime' || key === 'createdTime' || key === 'name' ? key : 'modifiedTime';
    return { key: known, desc: direction === 'desc' };
  });
}

function compareFiles(keys: SortKey[]) {
  return (a: DriveFile, b: DriveFile): number => {
    for (const { key, desc } of keys) {
      const x = a[key];
      const y = b[key];
      const order = x < y ? -1 : x > y ? 1 : 0;
      if (order !== 0) return desc ? -order : order;
    }
    return 0;
  };
}

/** The one user the fake's tokens act for (Drive `about.user`). */
export type FakeUser = { emailAddress: string; displayName: string };

export const DEFAULT_FAKE_USER: FakeUser = {
  emailAddress: 'fake.user@example.com',
  displayName: 'Fake User',
};

function aboutJson(user: FakeUser): Record<string, unknown> {
  return {
    kind: 'drive#about',
    user: {
      kind: 'drive#user',
      displayName: user.displayName,
      me: true,
      permissionId: '00000000000000000000',
      emailAddress: user.emailAddress,
    },
  };
}

/** Drive's about.get has no default field set: without `fields` it is a 400, as at Google. */
const fieldsRequired = (): GoogleError =>
  new GoogleError(400, "The 'fields' parameter is required for this method.", {
    errors: [
      {
        message: "The 'fields' parameter is required for this method.",
        domain: 'global',
        reason: 'required',
        location: 'fields',
        locationType: 'parameter',
      },
    ],
  });

export function driveRoutes(store: Store, user: FakeUser = DEFAULT_FAKE_USER): Route[] {
  return [
    {
      method: 'GET',
      pattern: /^\/drive\/v3\/about$/,
      quota: 'none',
      auth: true,
      handle: (req) => {
        const fields = req.query.get('fields');
        if (!fields) throw fieldsRequired();
        return ok(maskWith(aboutJson(user), fields));
      },
    },
    {
      method: 'GET',
      pattern: /^\/drive\/v3\/files$/,
      quota: 'none',
      auth: true,
      handle: (req) => {
        const predicate = parseDriveQuery(req.query.get('q'));
        const pageSize = Math.min(Math.max(Number(req.query.get('pageSize') ?? 100) || 100, 1), 1000);
        const offset = Number(req.query.get('pageToken') || 0) || 0;
        const matching = store
          .list()
          .filter(predicate)
          .sort(compareFiles(parseOrderBy(req.query.get('orderBy'))));
        const page = matching.slice(offset, offset + pageSize);
        const body: Record<string, unknown> = { kind: 'drive#fileList' };
        if (offset + pageSize < matching.length) body.nextPageToken = String(offset + pageSize);
        body.incompleteSearch = false;
        body.files = page.map(fileJson);
        const fields =
          req.query.get('fields') ?? 'kind,nextPageToken,incompleteSearch,files(kind,id,name,mimeType)';
        return ok(maskWith(body, fields));
      },
    },
    {
      method: 'POST',
      pattern: /^\/drive\/v3\/files$/,
      quota: 'none',
      auth: true,
      handle: (req) => {
        const name = typeof req.body.name === 'string' ? req.body.name : 'Untitled';
        const mimeType =
          typeof req.body.mimeType === 'string' ? req.body.mimeType : 'application/octet-stream';
        return ok(fileResponse(store.createFile(name, mimeType), req));
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/drive/v3/files/${FILE_ID}/copy$`),
      quota: 'none',
      auth: true,
      handle: (req, [id]) => {
        const source = getFile(store, decodeURIComponent(id as string));
        const name = typeof req.body.name === 'string' ? req.body.name : `Copy of ${source.name}`;
        return ok(fileResponse(store.copy(source, name), req));
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^/drive/v3/files/${FILE_ID}/comments$`),
      quota: 'none',
      auth: true,
      handle: (req, [id]) => {
        getFile(store, decodeURIComponent(id as string));
        const body = { kind: 'drive#commentList', comments: [] };
        return ok(maskWith(body, req.query.get('fields')));
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^/drive/v3/files/${FILE_ID}$`),
      quota: 'none',
      auth: true,
      handle: (req, [id]) => ok(fileResponse(getFile(store, decodeURIComponent(id as string)), req)),
    },
    {
      method: 'PATCH',
      pattern: new RegExp(`^/drive/v3/files/${FILE_ID}$`),
      quota: 'none',
      auth: true,
      handle: (req, [id]) => {
        const file = getFile(store, decodeURIComponent(id as string));
        if (typeof req.body.name === 'string') {
          if (file.book) file.book.properties.title = req.body.name;
          file.name = req.body.name;
          store.touch(file);
        }
        return ok(fileResponse(file, req));
      },
    },
    {
      method: 'DELETE',
      pattern: new RegExp(`^/drive/v3/files/${FILE_ID}$`),
      quota: 'none',
      auth: true,
      handle: (_req, [id]) => {
        store.delete(getFile(store, decodeURIComponent(id as string)).id);
        return { status: 204 };
      },
    },
  ];
}

export { GoogleError };

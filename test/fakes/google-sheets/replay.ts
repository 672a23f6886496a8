// Replays recorded Google API traffic (VCR cassettes: {"interactions":[{request, response}]})
// against a fresh fake and compares status and JSON body with what Google answered.
// Ids differ between Google and the fake, so the replay learns a mapping as it goes (from the
// answers' spreadsheetId / id / sheetId fields) and translates requests one way and answers the
// other. Only volatile fields are ignored: timestamps and etags. Files that existed in the
// recorded account before the recording started (seen in answers, never created by it) are set
// up in the fake first, with their recorded names, sheets and times.
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { type SeedFile, type SeedSheet, seedFile } from './admin-routes.ts';
import { type FakeGoogle, startFakeGoogle } from './server.ts';

type RecordedRequest = {
  method: string;
  uri: string;
  body: string | null;
  headers: Record<string, string[]>;
};
type RecordedResponse = { status: { code: number; message: string }; body: { string: string } };
type Interaction = { request: RecordedRequest; response: RecordedResponse };
export type Recording = { interactions: Interaction[] };

export type ReplayResult = { name: string; interactions: number; mismatch?: string };

const VOLATILE_KEYS = new Set(['createdTime', 'modifiedTime', 'etag', 'version']);

const parseJson = (text: string | null | undefined): unknown => {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** Spreadsheet / Drive file ids named in a request URL. */
function idsInUri(uri: string): string[] {
  const path = new URL(uri).pathname;
  const match = /\/(?:spreadsheets|files)\/([^/:]+)/.exec(path);
  return match?.[1] ? [decodeURIComponent(match[1])] : [];
}

/** What the recording tells about every file it saw: Drive metadata and sheet layout. */
function catalogue(recording: Recording) {
  const files = new Map<string, SeedFile>();
  const created = new Set<string>();
  const entry = (id: string): SeedFile => {
    let seed = files.get(id);
    if (!seed) {
      seed = { name: '' };
      files.set(id, seed);
    }
    return seed;
  };
  const noteDriveFile = (f: Record<string, unknown>) => {
    if (typeof f.id !== 'string') return;
    const seed = entry(f.id);
    if (typeof f.name === 'string') seed.name = f.name;
    if (typeof f.createdTime === 'string') seed.createdTime ??= f.createdTime;
    if (typeof f.modifiedTime === 'string') seed.modifiedTime ??= f.modifiedTime;
  };
  for (const { request, response } of recording.interactions) {
    if (response.status.code >= 300) continue;
    const body = parseJson(response.body.string) as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object') continue;
    const path = new URL(request.uri).pathname;
    if (
      request.method === 'POST' &&
      /^\/drive\/v3\/files(\/[^/]+\/copy)?$/.test(path) &&
      typeof body.id === 'string'
    )
      created.add(body.id);
    if (request.method === 'POST' && path === '/v4/spreadsheets' && typeof body.spreadsheetId === 'string')
      created.add(body.spreadsheetId);
    if (path.startsWith('/drive/v3/files')) {
      noteDriveFile(body);
      if (Array.isArray(body.files)) for (const f of body.files) noteDriveFile(f as Record<string, unknown>);
    }
    if (
      request.method === 'GET' &&
      /^\/v4\/spreadsheets\/[^/:]+$/.test(path) &&
      typeof body.spreadsheetId === 'string'
    ) {
      const seed = entry(body.spreadsheetId);
      const props = (body.properties ?? {}) as Record<string, unknown>;
      if (typeof props.title === 'string' && !seed.name) seed.name = props.title;
      if (typeof props.locale === 'string') seed.locale ??= props.locale;
      if (typeof props.timeZone === 'string') seed.timeZone ??= props.timeZone;
      if (!seed.sheets && Array.isArray(body.sheets))
        seed.sheets = (body.sheets as { properties: Record<string, unknown> }[]).map(({ properties: p }) => {
          const grid = (p.gridProperties ?? {}) as Record<string, number>;
          const sheet: SeedSheet = { title: String(p.title) };
          if (grid.rowCount) sheet.rowCount = grid.rowCount;
          if (grid.columnCount) sheet.columnCount = grid.columnCount;
          if (p.hidden) sheet.hidden = true;
          if (grid.frozenRowCount) sheet.frozenRowCount = grid.frozenRowCount;
          if (grid.frozenColumnCount) sheet.frozenColumnCount = grid.frozenColumnCount;
          return sheet;
        });
      (seed as SeedFile & { sheetIds?: number[] }).sheetIds ??= (
        body.sheets as { properties: { sheetId: number } }[]
      ).map((s) => s.properties.sheetId);
    }
  }
  return { files, created };
}

class IdMap {
  readonly files = new Map<string, string>(); // recorded → fake
  readonly sheets = new Map<number, number>([[0, 0]]);

  fileToFake(id: string): string {
    return this.files.get(id) ?? id;
  }

  /** Replaces recorded ids by fake ids (toFake) or back, in every string and sheetId value. */
  translate(value: unknown, toFake: boolean, key?: string): unknown {
    if (typeof value === 'string') {
      let out = value;
      for (const [recorded, fake] of this.files)
        out = out.split(toFake ? recorded : fake).join(toFake ? fake : recorded);
      return out;
    }
    if (typeof value === 'number' && key === 'sheetId') {
      if (toFake) return this.sheets.get(value) ?? value;
      for (const [recorded, fake] of this.sheets) if (fake === value) return recorded;
      return value;
    }
    if (Array.isArray(value)) return value.map((v) => this.translate(v, toFake, key));
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.translate(v, toFake, k)]));
    return value;
  }

  /** Learns ids from a recorded answer and the fake's answer to the same request. */
  learn(recorded: unknown, fake: unknown, key?: string): void {
    if (
      typeof recorded === 'string' &&
      typeof fake === 'string' &&
      (key === 'spreadsheetId' || key === 'id')
    ) {
      if (!this.files.has(recorded) && recorded !== fake) this.files.set(recorded, fake);
      return;
    }
    if (typeof recorded === 'number' && typeof fake === 'number' && key === 'sheetId') {
      if (!this.sheets.has(recorded)) this.sheets.set(recorded, fake);
      return;
    }
    if (Array.isArray(recorded) && Array.isArray(fake)) {
      recorded.forEach((r, i) => {
        this.learn(r, fake[i], key);
      });
      return;
    }
    if (recorded && fake && typeof recorded === 'object' && typeof fake === 'object')
      for (const [k, v] of Object.entries(recorded)) this.learn(v, (fake as Record<string, unknown>)[k], k);
  }
}

function withoutVolatile(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutVolatile);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !VOLATILE_KEYS.has(k))
        .map(([k, v]) => [k, withoutVolatile(v)]),
    );
  return value;
}

/** First difference between two JSON values, as a path and both sides; undefined if equal. */
export function firstDifference(expected: unknown, actual: unknown, path = '$'): string | undefined {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length)
      return `${path}: expected ${expected.length} items, got ${actual.length} (${JSON.stringify(actual).slice(0, 300)})`;
    for (let i = 0; i < expected.length; i++) {
      const d = firstDifference(expected[i], actual[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (
    expected &&
    actual &&
    typeof expected === 'object' &&
    typeof actual === 'object' &&
    !Array.isArray(expected) &&
    !Array.isArray(actual)
  ) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const k of keys) {
      const d = firstDifference(
        (expected as Record<string, unknown>)[k],
        (actual as Record<string, unknown>)[k],
        `${path}.${k}`,
      );
      if (d) return d;
    }
    return undefined;
  }
  if (expected === actual) return undefined;
  return `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

async function send(
  fake: FakeGoogle,
  request: RecordedRequest,
  ids: IdMap,
): Promise<{ status: number; body: unknown }> {
  const recordedUrl = new URL(request.uri);
  let target = recordedUrl.pathname + recordedUrl.search;
  for (const [recorded, fakeId] of ids.files) target = target.split(recorded).join(fakeId);
  const recordedBody = parseJson(request.body);
  const body = recordedBody === undefined ? undefined : JSON.stringify(ids.translate(recordedBody, true));
  const headers: Record<string, string> = { authorization: 'Bearer replay-token' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(fake.url + target, {
    method: request.method,
    headers,
    body,
    redirect: 'manual',
  });
  const text = await response.text();
  return { status: response.status, body: parseJson(text) };
}

export async function replayRecording(path: string): Promise<ReplayResult> {
  const recording = JSON.parse(await readFile(path, 'utf8')) as Recording;
  const name = basename(path, '.json');
  const { files, created } = catalogue(recording);
  const fake = await startFakeGoogle();
  const ids = new IdMap();
  const ensureExisting = (recordedId: string) => {
    const seed = files.get(recordedId);
    if (ids.files.has(recordedId) || created.has(recordedId) || !seed?.name) return;
    const made = seedFile(fake.store, seed);
    ids.files.set(recordedId, made.id);
    const recordedSheetIds = (seed as SeedFile & { sheetIds?: number[] }).sheetIds ?? [];
    recordedSheetIds.forEach((sheetId, i) => {
      ids.sheets.set(sheetId, made.sheetIds[i] as number);
    });
  };
  try {
    for (const [index, { request, response }] of recording.interactions.entries()) {
      for (const id of idsInUri(request.uri)) ensureExisting(id);
      const expectedBody = parseJson(response.body.string);
      const listed = (expectedBody as { files?: { id?: string }[] } | undefined)?.files;
      if (Array.isArray(listed)) for (const f of listed) if (typeof f.id === 'string') ensureExisting(f.id);
      const actual = await send(fake, request, ids);
      ids.learn(expectedBody, actual.body);
      const where = `#${index} ${request.method} ${decodeURIComponent(new URL(request.uri).pathname)}`;
      if (actual.status !== response.status.code)
        return {
          name,
          interactions: index,
          mismatch: `${where}: status ${actual.status}, recorded ${response.status.code} — ${JSON.stringify(actual.body).slice(0, 300)}`,
        };
      const difference = firstDifference(
        withoutVolatile(expectedBody),
        withoutVolatile(ids.translate(actual.body, false)),
      );
      if (difference) return { name, interactions: index, mismatch: `${where}: ${difference}` };
    }
    return { name, interactions: recording.interactions.length };
  } finally {
    await fake.close();
  }
}

export async function replayDirectory(
  dir: string,
): Promise<{ results: ReplayResult[]; matched: number; total: number }> {
  const names = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  const results: ReplayResult[] = [];
  for (const file of names) results.push(await replayRecording(join(dir, file)));
  return { results, matched: results.filter((r) => !r.mismatch).length, total: results.length };
}

/**
 * Macro-enabled workbooks (.xlsm) through the real path: files saved by Excel (test/fixtures/xlsx-corpus, with a VBA
 * project and, for button07, a form button wired to a macro) are connected with POST /admin/connections, then
 * written through the row API (append, update, delete). Python reads the result independently: every zip entry
 * the write had no reason to touch (the VBA project above all) has the same bytes and CRC as before, every XML
 * part is well-formed, and openpyxl (keep_vba) reads back the expected rows and still finds the VBA project.
 * The formats SheetPort does not read (.xlsb, templates) are refused by extension, nothing registered.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZipArchive } from '../../../server/sources/workbook/ooxml/zip-archive.ts';
import { type Harness, startHarness, type TestResponse } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const CORPUS = path.resolve(import.meta.dirname, '../../fixtures/xlsx-corpus');

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

function admin(method: string, urlPath: string, body?: unknown): Promise<TestResponse> {
  return fetch(h.url + urlPath, {
    method,
    headers: { authorization: `Bearer ${h.context.adminToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

function rows(userKey: string, sheet: string, method = 'GET', rest = '', body?: unknown) {
  return h.fetch(`/api/spreadsheets/${userKey}/${encodeURIComponent(sheet)}${rest}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
}

/**
 * The two packages compared entry by entry (decompressed bytes, CRC-32, compression method), every XML part
 * of the written one parsed, and openpyxl's view of it: the first sheet's rows and whether the VBA survived.
 */
const CHECK = `
import json, re, sys, zipfile
from xml.dom import minidom
import openpyxl

before_path, after_path = sys.argv[1], sys.argv[2]
before, after = zipfile.ZipFile(before_path), zipfile.ZipFile(after_path)
infos = {i.filename: i for i in after.infolist()}
changed, missing, unreadable_xml = [], [], []
for old in before.infolist():
    new = infos.get(old.filename)
    if new is None:
        missing.append(old.filename)
        continue
    if (before.read(old) != after.read(new) or old.CRC != new.CRC
            or old.compress_type != new.compress_type):
        changed.append(old.filename)
added = sorted(set(infos) - set(before.namelist()))
for name in after.namelist():
    if re.search(r'\\.(xml|rels|vml)$', name):
        try:
            minidom.parseString(after.read(name))
        except Exception as e:
            unreadable_xml.append('%s: %s' % (name, e))
wb = openpyxl.load_workbook(after_path, keep_vba=True)
ws = wb.worksheets[0]
print(json.dumps({
    'changed': sorted(changed),
    'missing': missing,
    'added': added,
    'unreadableXml': unreadable_xml,
    'vba': None if wb.vba_archive is None else sorted(wb.vba_archive.namelist()),
    'vbaBytesKept': wb.vba_archive is not None
        and wb.vba_archive.read('xl/vbaProject.bin') == before.read('xl/vbaProject.bin'),
    'sheet': ws.title,
    'rows': [list(r) for r in ws.iter_rows(values_only=True)],
}, default=str))
`;

interface Checked {
  changed: string[];
  missing: string[];
  added: string[];
  unreadableXml: string[];
  vba: string[] | null;
  vbaBytesKept: boolean;
  sheet: string;
  rows: unknown[][];
}

/** What a row write may rewrite: the tab's sheet, shared strings, table parts and the calculation chain. */
const MAY_CHANGE = /^xl\/(worksheets\/sheet\d+\.xml|sharedStrings\.xml|tables\/[^/]+\.xml|calcChain\.xml)$/;

/** The entries whose raw zip bytes (local header, compressed data) differ: the engine copies the rest as they are. */
function rewrittenEntries(original: string, written: string): string[] {
  const before = ZipArchive.open(readFileSync(original));
  const after = ZipArchive.open(readFileSync(written));
  return before.entries
    .filter((entry) => !after.entry(entry.name)?.local.equals(entry.local))
    .map((entry) => entry.name);
}

async function connectCopy(name: string, as = name) {
  const file = path.join(h.dir, as);
  copyFileSync(path.join(CORPUS, name), file);
  const res = await admin('POST', '/admin/connections', { location: file });
  expect(res.status).toBe(201);
  return { file, body: await res.json() };
}

describe('.xlsm saved by Excel, connected and written through HTTP', () => {
  it('macro01.xlsm: connects, appends, updates and deletes rows; the VBA project and every other part kept', async () => {
    const { file, body } = await connectCopy('macro01.xlsm');
    expect(body).toMatchObject({ name: 'macro01.xlsm', source: 'workbook' });
    expect(body.sheets).toEqual([expect.objectContaining({ name: 'Sheet1', header: ['123'], row_count: 0 })]);
    const key = body.user_key as string;

    const appended = await rows(key, 'Sheet1', 'POST', '', [{ 123: 'first' }, { 123: 2 }, { 123: true }]);
    expect(appended.status).toBe(201);
    expect((await rows(key, 'Sheet1', 'PUT', '/1', { 123: 'updated' })).status).toBe(200);
    expect((await rows(key, 'Sheet1', 'DELETE', '/2')).status).toBe(200);
    expect(await (await rows(key, 'Sheet1', 'GET', '?limit=10')).json()).toEqual([
      { 123: 'updated' },
      { 123: true },
    ]);

    const seen = JSON.parse(await runPython(CHECK, [path.join(CORPUS, 'macro01.xlsm'), file])) as Checked;
    expect(seen.missing).toEqual([]);
    expect(seen.added).toEqual([]);
    expect(seen.unreadableXml).toEqual([]);
    expect(seen.changed).toEqual(['xl/worksheets/sheet1.xml']);
    expect(seen.changed.every((name) => MAY_CHANGE.test(name))).toBe(true);
    expect(seen.vba).toContain('xl/vbaProject.bin');
    expect(seen.vbaBytesKept).toBe(true);
    expect(seen.sheet).toBe('Sheet1');
    expect(seen.rows).toEqual([[123], ['updated'], [true]]);
    expect(rewrittenEntries(path.join(CORPUS, 'macro01.xlsm'), file)).toEqual(['xl/worksheets/sheet1.xml']);

    // A fresh read of the file (nothing cached) agrees.
    const again = await startHarness();
    try {
      const res = await again.fetch(`/api/spreadsheets/${(await again.connect(file)).userKey}/Sheet1`);
      expect(await res.json()).toEqual([{ 123: 'updated' }, { 123: true }]);
    } finally {
      await again.close();
    }
  });

  it('button07.xlsm (an empty tab, a button wired to a macro): the first append writes the header too', async () => {
    const { file, body } = await connectCopy('button07.xlsm');
    expect(body.sheets).toEqual([expect.objectContaining({ name: 'Sheet1', header: [], row_count: 0 })]);
    const key = body.user_key as string;

    const appended = await rows(key, 'Sheet1', 'POST', '', [
      { Name: 'Ann', Qty: 1 },
      { Name: 'Bob', Qty: 2 },
      { Name: 'Cid', Qty: 3 },
    ]);
    expect(appended.status).toBe(201);
    expect((await rows(key, 'Sheet1', 'PUT', '/3', { Qty: 30 })).status).toBe(200);
    expect((await rows(key, 'Sheet1', 'DELETE', '/1')).status).toBe(200);

    const seen = JSON.parse(await runPython(CHECK, [path.join(CORPUS, 'button07.xlsm'), file])) as Checked;
    expect(seen.missing).toEqual([]);
    expect(seen.added).toEqual([]);
    expect(seen.unreadableXml).toEqual([]);
    expect(seen.changed).toEqual(['xl/worksheets/sheet1.xml']);
    expect(seen.vba).toContain('xl/vbaProject.bin');
    expect(seen.vbaBytesKept).toBe(true);
    expect(seen.rows).toEqual([
      ['Name', 'Qty'],
      ['Bob', 2],
      ['Cid', 30],
    ]);
    expect(rewrittenEntries(path.join(CORPUS, 'button07.xlsm'), file)).toEqual(['xl/worksheets/sheet1.xml']);
  });

  it('an .xlsm name in any case is a workbook', async () => {
    const { body } = await connectCopy('macro03.xlsm', 'MACRO03.XLSM');
    expect(body).toMatchObject({ name: 'MACRO03.XLSM', sheets: [expect.objectContaining({ name: 'Foo' })] });
  });
});

describe('workbook formats SheetPort does not read', () => {
  for (const [ext, says] of [
    ['.xlsb', /binary workbook.*save it from Excel as \.xlsx/],
    ['.xltx', /template/],
    ['.xltm', /template/],
  ] as const) {
    it(`${ext}: 415 unsupported_media_type naming what to do; nothing registered`, async () => {
      const file = path.join(h.dir, `book${ext}`);
      // Any content: the extension alone decides, before the file is read.
      await writeFile(file, 'PK\x03\x04');
      const res = await admin('POST', '/admin/connections', { location: file });
      expect(res.status).toBe(415);
      const { error } = await res.json();
      expect(error).toMatchObject({ code: 'unsupported_media_type', parameter: 'location' });
      expect(error.message).toMatch(says);
      expect(error.message).toContain('expected .xlsx, .xlsm or .csv');
      expect(await h.context.connections.getByLocation('workbook', file)).toBeNull();
    });
  }
});

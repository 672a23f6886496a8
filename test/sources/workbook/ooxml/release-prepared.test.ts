/**
 * A write document kept between writes lets go of the file's bytes once its sheets are held in pieces
 * (OoxmlDocument.releasePrepared, zip-archive.ts `withoutParts`): every later save writes those sheets from
 * their pieces, the one a write changed and the ones it did not, and copies every other part as it was. The
 * workbook is made by openpyxl with two sheets of several pieces each; the original bytes are zeroed after the
 * release, so anything still read from them would show; openpyxl reads every save back.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planWrite } from '../../../../server/sources/plan.ts';
import { OoxmlDocument } from '../../../../server/sources/workbook/ooxml/ooxml-document.ts';
import { ZipArchive } from '../../../../server/sources/workbook/ooxml/zip-archive.ts';
import { writeZip } from '../../../../server/sources/workbook/ooxml/zip-writer.ts';
import { runPython } from '../../../helpers/openpyxl.ts';
import { PLAIN } from '../helpers.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-release-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const MAKE = `
import sys, openpyxl
wb = openpyxl.Workbook()
a = wb.active
a.title = 'A'
a.append(['Name', 'Qty'])
for i in range(1, 1501):
    a.append(['a%d' % i, i])
b = wb.create_sheet('B')
b.append(['Key', 'Value'])
for i in range(1, 901):
    b.append(['b%d' % i, i * 2])
wb.properties.title = 'kept as it was'
wb.save(sys.argv[1])
`;

const LOOK = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
rows = lambda ws: [list(r) for r in ws.iter_rows(min_row=2, values_only=True)]
print(json.dumps({'A': rows(wb['A']), 'B': rows(wb['B']), 'title': wb.properties.title}))
`;

async function save(
  doc: OoxmlDocument,
  name: string,
): Promise<{ A: unknown[][]; B: unknown[][]; title: string }> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, Buffer.concat(await doc.serialize()));
  return JSON.parse(await runPython(LOOK, [file]));
}

const expectedA = Array.from({ length: 1500 }, (_, i) => [`a${i + 1}`, i + 1]);
const expectedB = Array.from({ length: 900 }, (_, i) => [`b${i + 1}`, (i + 1) * 2]);

describe('a write document that let go of the file’s bytes', () => {
  it('writes its sheets from their pieces, changed or not, and every other part as it was', async () => {
    const file = path.join(dir, 'two.xlsx');
    await runPython(MAKE, [file]);
    const bytes = fs.readFileSync(file);
    const doc = await OoxmlDocument.parse(bytes);
    const [a, b] = doc.tabs().map((tab) => tab.sourceSheetId) as [string, string];
    await doc.prepare(a);
    await doc.prepare(b);
    doc.releasePrepared();
    bytes.fill(0);

    // A write to A alone: B, held and unchanged, is written from its pieces.
    await doc.apply(
      a,
      planWrite(doc.tab(a)!, [
        { op: 'update', row: 700, values: { Name: 'changed' } },
        { op: 'append', values: { Name: 'new', Qty: 0 } },
      ]),
      PLAIN,
    );
    const first = await save(doc, 'first.xlsx');
    const a1 = expectedA.map((row, i) => (i === 699 ? ['changed', 700] : row));
    expect(first).toEqual({ A: [...a1, ['new', 0]], B: expectedB, title: 'kept as it was' });

    // Then a delete in B, which moves its rows below: A, unchanged this time, is written from its pieces.
    await doc.apply(b, planWrite(doc.tab(b)!, [{ op: 'delete', row: 300 }]), PLAIN);
    const second = await save(doc, 'second.xlsx');
    expect(second).toEqual({
      A: [...a1, ['new', 0]],
      B: expectedB.filter((_, i) => i !== 299),
      title: 'kept as it was',
    });
    // A fresh read of what was written gives the document's own tabs.
    const fresh = await OoxmlDocument.parse(fs.readFileSync(path.join(dir, 'second.xlsx')));
    expect(fresh.tabs().map((tab) => tab.typed)).toEqual(doc.tabs().map((tab) => tab.typed));
  });

  it('reads a tab whose sheet was let go before the tab was read from the pieces it holds', async () => {
    // No write path does this (a kept document holds every tab first); the package answers right anyway.
    const bytes = fs.readFileSync(path.join(dir, 'two.xlsx'));
    const doc = await OoxmlDocument.parse(bytes);
    await doc.prepare('2');
    doc.releasePrepared();
    bytes.fill(0);
    const [, b] = doc.tabs();
    expect(b!.name).toBe('B');
    expect(b!.typed).toEqual(expectedB);
  });

  it('refuses to write a zip with a part let go and not given anew', () => {
    const bytes = fs.readFileSync(path.join(dir, 'two.xlsx'));
    const archive = ZipArchive.open(bytes);
    const sheet = archive.entries.find((entry) => entry.name.startsWith('xl/worksheets/'))!.name;
    const released = archive.withoutParts(new Set([sheet]));
    expect(released.read(sheet)).toBeUndefined();
    expect(released.text('[Content_Types].xml')).toBe(archive.text('[Content_Types].xml'));
    expect(() => writeZip(released, new Map())).toThrow(/let go/);
    // Every other part is copied byte for byte.
    const kept = Buffer.concat(writeZip(released, new Map([[sheet, Buffer.from('<worksheet/>')]])));
    const reopened = ZipArchive.open(kept);
    for (const entry of archive.entries.filter((e) => e.name !== sheet))
      expect(reopened.entry(entry.name)!.local.equals(entry.local), entry.name).toBe(true);
  });
});

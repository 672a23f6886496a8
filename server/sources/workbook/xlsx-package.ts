import path from 'node:path';
import JSZip from 'jszip';

/**
 * Package parts ExcelJS silently drops when it saves a workbook. A write to a file that has any of them
 * would destroy the user's charts or macros, so such files are read-only for SheetPort (409 conflict).
 */
const UNKEPT_PARTS: readonly [prefix: string, what: string][] = [
  ['xl/charts/', 'charts'],
  ['xl/chartsheets/', 'chart sheets'],
  ['xl/pivotTables/', 'pivot tables'],
  ['xl/pivotCache/', 'pivot tables'],
  ['xl/slicers/', 'slicers'],
  ['xl/slicerCaches/', 'slicers'],
  ['xl/timelines/', 'timelines'],
  ['xl/vbaProject.bin', 'macros (VBA)'],
  ['xl/externalLinks/', 'external links'],
  ['xl/ctrlProps/', 'form controls'],
  ['xl/activeX/', 'ActiveX controls'],
];

export interface PreparedPackage {
  /** The bytes to hand to ExcelJS (rewritten only when relationship targets needed fixing). */
  bytes: Uint8Array;
  /** What a save would lose, e.g. `['charts']`; empty when writing is safe. */
  lostOnSave: string[];
}

/**
 * Looks inside the zip before ExcelJS does. Files written by openpyxl (and so by pandas) use absolute
 * relationship targets (`/xl/tables/table1.xml`), which ExcelJS cannot resolve for tables and comments and
 * fails on; Excel itself writes relative ones. Rewriting those targets relative makes such files readable.
 */
export async function prepareXlsxPackage(bytes: Uint8Array): Promise<PreparedPackage> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes);
  } catch {
    return { bytes, lostOnSave: [] }; // Not a readable zip: the ExcelJS load reports that itself.
  }
  const lost = new Set<string>();
  for (const name of Object.keys(zip.files)) {
    for (const [prefix, what] of UNKEPT_PARTS) if (name.startsWith(prefix)) lost.add(what);
  }
  let rewritten = false;
  for (const name of Object.keys(zip.files)) {
    if (!name.startsWith('xl/') || !name.endsWith('.rels')) continue;
    const xml = await zip.file(name)!.async('string');
    const fixed = relativizeTargets(name, xml);
    if (fixed !== xml) {
      zip.file(name, fixed);
      rewritten = true;
    }
  }
  const out = rewritten ? await zip.generateAsync({ type: 'uint8array' }) : bytes;
  return { bytes: out, lostOnSave: [...lost] };
}

/** `xl/worksheets/_rels/sheet1.xml.rels` owns `xl/worksheets/sheet1.xml`; targets are relative to its folder. */
export function relativizeTargets(relsName: string, xml: string): string {
  const ownerDir = path.posix.dirname(path.posix.dirname(relsName));
  return xml.replace(/<Relationship\b[^>]*>/g, (tag) => {
    if (/TargetMode\s*=\s*"External"/.test(tag)) return tag;
    return tag.replace(/Target\s*=\s*"\/([^"]+)"/, (_m, absolute: string) => {
      return `Target="${path.posix.relative(ownerDir, absolute)}"`;
    });
  });
}

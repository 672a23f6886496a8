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

/** What in this package would be lost on save, e.g. `['charts', 'pivot tables']`; empty when it is safe. */
export async function partsLostOnSave(bytes: Uint8Array): Promise<string[]> {
  let names: string[];
  try {
    names = Object.keys((await JSZip.loadAsync(bytes)).files);
  } catch {
    return []; // Not a readable zip: the ExcelJS load reports that itself.
  }
  const lost = new Set<string>();
  for (const name of names) {
    for (const [prefix, what] of UNKEPT_PARTS) if (name.startsWith(prefix)) lost.add(what);
  }
  return [...lost];
}

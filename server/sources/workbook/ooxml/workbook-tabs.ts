/**
 * The tabs a workbook serves, in order, each with the sheet part that holds it, found by sheetId or name;
 * plus what the workbook part says for all of them (the 1904 date system, defined names).
 */
import type { DefinedName } from '../formulas/evaluator.ts';
import type { OoxmlPackage } from './ooxml-package.ts';
import { relKind } from './package-parts.ts';
import { readWorkbookInfo, type SheetEntry, type WorkbookInfo } from './workbook-part.ts';

/** One tab: the workbook's entry for it and its worksheet part (spelled as the zip entry is). */
export interface Tab {
  entry: SheetEntry;
  part: string;
}

/** The workbook's defined names, a local one with the name of the tab it belongs to. */
export function definedNames(info: WorkbookInfo): DefinedName[] {
  return info.names.map(({ name, formula, localSheetId }) => ({
    name,
    formula,
    ...(localSheetId === undefined ? {} : { sheet: info.sheets[localSheetId]?.name ?? '' }),
  }));
}

export class WorkbookTabs {
  readonly list: readonly Tab[];
  readonly date1904: boolean;
  /** Defined names as the file was opened with them (a row delete may rewrite them later). */
  readonly names: DefinedName[];

  constructor(pkg: OoxmlPackage) {
    const info = readWorkbookInfo(pkg.workbookXml);
    this.date1904 = info.date1904;
    this.names = definedNames(info);
    const list: Tab[] = [];
    for (const entry of info.sheets) {
      const rel = pkg.workbookRels.find((r) => r.id === entry.relId);
      // Chart sheets, dialog sheets and macro sheets hold no rows: they are not tabs the service serves.
      if (!rel || rel.external || relKind(rel) !== 'worksheet' || !pkg.archive.has(rel.target)) continue;
      list.push({ entry, part: pkg.archive.entry(rel.target)?.name as string });
    }
    this.list = list;
  }

  find(sourceSheetId: string): Tab | undefined {
    return this.list.find((t) => t.entry.sheetId === sourceSheetId);
  }

  named(name: string): Tab | undefined {
    return this.list.find((t) => t.entry.name === name);
  }
}

/**
 * `xl/workbook.xml`: the tabs (name, sheetId, relationship to their part), the 1904 date system flag and
 * the defined names. Read with text scans (the part is small); edits are targeted replacements.
 */
import { decodeXml, getAttr, setAttr, tagPattern } from './xml-text.ts';

export interface SheetEntry {
  name: string;
  sheetId: string;
  relId: string;
}

export interface WorkbookInfo {
  sheets: SheetEntry[];
  date1904: boolean;
  /** Defined names: the tab a local one belongs to is `sheets[localSheetId]`. */
  names: { name: string; formula: string; localSheetId?: number }[];
}

const DEFINED_NAME = /<((?:[\w.-]+:)?definedName)(\s[^>]*)?>([\s\S]*?)<\/\1>/g;

export function readWorkbookInfo(xml: string): WorkbookInfo {
  const sheets: SheetEntry[] = [];
  for (const [tag] of xml.matchAll(tagPattern('sheet'))) {
    const name = getAttr(tag, 'name');
    const sheetId = getAttr(tag, 'sheetId');
    const relId = getAttr(tag, 'r:id') ?? /\s[\w.-]+:id\s*=\s*"([^"]*)"/.exec(tag)?.[1];
    if (name !== undefined && sheetId !== undefined && relId !== undefined)
      sheets.push({ name, sheetId, relId });
  }
  const pr = xml.match(tagPattern('workbookPr'))?.[0];
  const flag = pr === undefined ? undefined : getAttr(pr, 'date1904');
  const names: WorkbookInfo['names'] = [];
  for (const m of xml.matchAll(DEFINED_NAME)) {
    const attrs = m[2] ?? '';
    const name = getAttr(attrs, 'name');
    const local = getAttr(attrs, 'localSheetId');
    if (name === undefined) continue;
    names.push({
      name,
      formula: decodeXml(m[3] ?? ''),
      ...(local === undefined ? {} : { localSheetId: Number(local) }),
    });
  }
  return { sheets, date1904: flag === '1' || flag === 'true', names };
}

/** Asks Excel and LibreOffice to recalculate every formula on open (cached results may be stale). */
export function withFullCalcOnLoad(xml: string): string {
  const calcPr = xml.match(tagPattern('calcPr'))?.[0];
  if (calcPr) return xml.replace(calcPr, setAttr(calcPr, 'fullCalcOnLoad', '1'));
  // calcPr comes after definedNames and before the extensions in CT_Workbook's sequence.
  const prefix = /<([A-Za-z_][\w.-]*:)?workbook[\s>]/.exec(xml)?.[1] ?? '';
  const tag = `<${prefix}calcPr fullCalcOnLoad="1"/>`;
  for (const next of [
    'oleSize',
    'customWorkbookViews',
    'pivotCaches',
    'smartTagPr',
    'smartTagTypes',
    'webPublishing',
    'fileRecoveryPr',
    'webPublishObjects',
    'extLst',
  ]) {
    const m = new RegExp(`<(?:[\\w.-]+:)?${next}[\\s/>]`).exec(xml);
    if (m) return xml.slice(0, m.index) + tag + xml.slice(m.index);
  }
  return xml.replace(/<\/([A-Za-z_][\w.-]*:)?workbook>\s*$/, (end) => tag + end);
}

/** Each `<definedName>`'s text passed through `edit` (decoded in, encoded out); unchanged text keeps its bytes. */
export function editDefinedNames(
  xml: string,
  edit: (formula: string, localSheetId: string | undefined) => string | null,
): string {
  return xml.replace(
    /<((?:[\w.-]+:)?definedName)(\s[^>]*)?>([\s\S]*?)<\/\1>/g,
    (whole, _name: string, attrs: string | undefined, body: string) => {
      const formula = decodeXml(body);
      const next = edit(formula, attrs === undefined ? undefined : getAttr(attrs, 'localSheetId'));
      if (next === formula) return whole;
      if (next === null) return '';
      return whole.replace(
        `>${body}<`,
        `>${next.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}<`,
      );
    },
  );
}

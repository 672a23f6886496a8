/**
 * What a delete does to each row of the tab it deletes from: a deleted row goes, a row below moves up (its
 * number and its cells' references), and every formula's references follow the rows they name or become #REF!.
 * Pure, so the piece threads make the same rewrite (piece-rewrite.ts) as the service's thread (row-delete.ts).
 */
import { type ShiftContext, shiftFormula, shiftRange } from '../formulas/formula-text.ts';
import { RowMap } from '../row-map.ts';
import { mayHoldFormula } from './formula-reach.ts';
import type { RowRewrite, RowsDeleted } from './row-slots.ts';
import { movedRowXml, parseRow, renumberRow, rowToXml } from './row-xml.ts';
import { decodeXml, escapeXml, getAttr, setAttr } from './xml-text.ts';

const FORMULA = /<((?:[\w.-]+:)?f)(\s[^>]*?)?(?:\/>|>([\s\S]*?)<\/\1>)/g;

/** Each `<f>` of `xml` passed through `edit` (text decoded, attributes as a start tag). */
export function editFormulas(
  xml: string,
  edit: (text: string | undefined, start: string) => { text: string | undefined; start: string },
): string {
  return xml.replace(FORMULA, (whole, name: string, attrs: string | undefined, body: string | undefined) => {
    const start = `<${name}${attrs ?? ''}>`;
    const text = body === undefined ? undefined : decodeXml(body);
    const next = edit(text, start);
    if (next.text === text && next.start === start) return whole;
    if (next.text === undefined) return `${next.start.slice(0, -1)}/>`;
    return `${next.start}${escapeXml(next.text)}</${name}>`;
  });
}

/** Every formula of `xml` with its references shifted as `ctx` says (and a shared formula's `ref` range). */
export function shiftSheetFormulas(xml: string, ctx: ShiftContext): string {
  if (!mayHoldFormula(xml)) return xml;
  return editFormulas(xml, (text, start) => {
    const ref = getAttr(start, 'ref');
    const movedRef = ref === undefined || !ctx.onSameSheet ? ref : (shiftRange(ref, ctx.rows) ?? undefined);
    return {
      text: text === undefined ? undefined : shiftFormula(text, ctx),
      start: movedRef === ref ? start : setAttr(start, 'ref', movedRef),
    };
  });
}

/** A row renumbered by taking it apart (any form of cell reference, pretty-printed rows). */
function renumbered(xml: string, prefix: string, number: number): string {
  const row = parseRow(xml, prefix);
  renumberRow(row, number);
  return rowToXml(row, prefix);
}

/** Each row of the tab the rows are deleted from, as the delete leaves it (null: the row goes). */
export function deleteRowRewrite({ deleted, sheetName, prefix }: RowsDeleted): RowRewrite {
  const rows = new RowMap(deleted);
  const ctx: ShiftContext = { sheetName, onSameSheet: true, rows };
  return (slot) => {
    const number = rows.row(slot.number);
    if (number === null) return null;
    let xml = shiftSheetFormulas(slot.xml, ctx);
    if (number !== slot.number) xml = movedRowXml(xml, number) ?? renumbered(xml, prefix, number);
    return number === slot.number && xml === slot.xml ? slot : { number, xml };
  };
}

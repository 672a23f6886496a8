/**
 * The cells of a worksheet part through saxes, a full XML parser: for the parts the fast scanner leaves alone
 * (comments or CDATA inside the cells, a DTD, unknown entities). Reports the same cells the same way.
 */
import { SaxesParser } from 'saxes';
import { parseCellRef } from './cell-ref.ts';
import type { CellSink, ScannedCell, SheetScan } from './scanned-cell.ts';

const localName = (name: string) => {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
};

export function scanWithSaxes(xml: string, sink: CellSink): SheetScan {
  const merges: string[] = [];
  const parser = new SaxesParser({ position: false });
  let inSheetData = false;
  let rowNumber = 0;
  let columnNumber = 0;
  let cell: ScannedCell | null = null;
  let collecting: 'v' | 't' | 'f' | null = null;
  let phonetic = 0;
  let text = '';

  parser.on('opentag', (tag) => {
    const name = localName(tag.name);
    const attrs = tag.attributes as Record<string, string>;
    if (!inSheetData) {
      if (name === 'sheetData') inSheetData = true;
      else if (name === 'mergeCell' && attrs.ref) merges.push(attrs.ref);
      return;
    }
    switch (name) {
      case 'row': {
        const r = Number(attrs.r);
        rowNumber = Number.isInteger(r) && r > 0 ? r : rowNumber + 1;
        columnNumber = 0;
        break;
      }
      case 'c': {
        const at = attrs.r === undefined ? undefined : parseCellRef(attrs.r);
        if (at) {
          columnNumber = at.column;
          if (at.row !== rowNumber) rowNumber = at.row;
        } else columnNumber++;
        const s = attrs.s === undefined ? 0 : Number(attrs.s);
        cell = {
          row: rowNumber,
          column: columnNumber,
          style: Number.isInteger(s) && s >= 0 ? s : 0,
          type: attrs.t,
          value: undefined,
          formula: undefined,
          formulaType: undefined,
          sharedIndex: undefined,
          formulaRef: undefined,
        };
        break;
      }
      case 'f':
        if (cell) {
          cell.formula = '';
          cell.formulaType = attrs.t;
          cell.sharedIndex = attrs.si;
          cell.formulaRef = attrs.ref;
          collecting = 'f';
          text = '';
        }
        break;
      case 'v':
        collecting = 'v';
        text = '';
        break;
      case 'rPh':
        phonetic++;
        break;
      case 't':
        if (cell && phonetic === 0) {
          collecting = 't';
          if (cell.value === undefined) cell.value = '';
        }
        break;
    }
  });
  const onText = (chunk: string) => {
    if (collecting === 'v' || collecting === 'f') text += chunk;
    else if (collecting === 't' && cell) cell.value += chunk;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', (tag) => {
    if (!inSheetData) return;
    const name = localName(tag.name);
    if (name === 'v') {
      if (cell && cell.type !== 'inlineStr') cell.value = text;
      collecting = null;
    } else if (name === 'f') {
      if (cell) cell.formula = text;
      collecting = null;
    } else if (name === 't') collecting = null;
    else if (name === 'rPh') phonetic--;
    else if (name === 'c') {
      if (cell) sink.cell(cell);
      cell = null;
    } else if (name === 'sheetData') inSheetData = false;
  });
  parser.write(xml).close();
  return { merges };
}

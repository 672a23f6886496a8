/**
 * A formula cell's cached result (`<v>` and the cell's `t`), set to what the service computed, so readers that
 * do not calculate (openpyxl, pandas, a sync preview) see the value the API serves. The formula stays as it was.
 */
import { lowerBound } from '../../../lib/lower-bound.ts';
import type { FormulaResult } from '../formulas/evaluator.ts';
import { encodeCellText } from '../ooxml-text.ts';
import type { RowResult, RowRewrite } from './row-slots.ts';
import { parseRow, rowToXml } from './row-xml.ts';
import { escapeXml, getAttr, setAttr } from './xml-text.ts';

const FORMULA_TAG = /<(?:[\w.-]+:)?f\b[^>]*>/;
const VALUE = /<(?:[\w.-]+:)?v(?:\s[^>]*)?(?:\/>|>([\s\S]*?)<\/(?:[\w.-]+:)?v>)/;

/** Whether a formula cell holds a result (an empty `<v>` counts only for a text result, as openpyxl writes). */
function hasResult(cellXml: string): boolean {
  const v = VALUE.exec(cellXml);
  if (!v) return false;
  if ((v[1] ?? '') !== '') return true;
  return getAttr(/^<[^>]*>/.exec(cellXml)?.[0] ?? '', 't') === 'str';
}

/**
 * A row's XML with `results` (by column, 1-based) stored in its formula cells that hold none: the same text
 * when none changed. Data tables' formulas are left alone (Excel computes them).
 */
export function rowWithResults(
  xml: string,
  prefix: string,
  results: ReadonlyMap<number, FormulaResult>,
): string {
  const row = parseRow(xml, prefix);
  let changed = false;
  for (const cell of row.cells) {
    const result = results.get(cell.column);
    if (!result) continue;
    const f = FORMULA_TAG.exec(cell.xml)?.[0];
    if (f === undefined || (f.includes('dataTable') && getAttr(f, 't') === 'dataTable')) continue;
    if (hasResult(cell.xml)) continue;
    const next = withCachedResult(cell.xml, result, prefix);
    if (next === cell.xml) continue;
    cell.xml = next;
    changed = true;
  }
  return changed ? rowToXml(row, prefix) : xml;
}

/** A cell's `<v>` and the end of its `<f>`, for one namespace prefix: made once (a write may set 100,000). */
const patterns = new Map<string, { value: RegExp; formulaEnd: RegExp }>();

function patternsOf(prefix: string): { value: RegExp; formulaEnd: RegExp } {
  let made = patterns.get(prefix);
  if (!made) {
    const p = prefix.replace('.', '\\.');
    made = {
      value: new RegExp(`<${p}v(?:\\s[^>]*)?(?:/>|>[\\s\\S]*?</${p}v>)`),
      formulaEnd: new RegExp(`(<${p}f\\b[^>]*/>|</${p}f>)`),
    };
    patterns.set(prefix, made);
  }
  return made;
}

export function withCachedResult(cellXml: string, result: FormulaResult, prefix: string): string {
  const start = /^<[^>]*>/.exec(cellXml)?.[0];
  if (!start || start.endsWith('/>')) return cellXml;
  const type =
    result.kind === 'number'
      ? undefined
      : result.kind === 'boolean'
        ? 'b'
        : result.kind === 'error'
          ? 'e'
          : 'str';
  const text =
    result.kind === 'number'
      ? String(result.value)
      : result.kind === 'boolean'
        ? result.value
          ? '1'
          : '0'
        : escapeXml(result.kind === 'text' ? encodeCellText(result.value) : result.value);
  const { value, formulaEnd: end } = patternsOf(prefix);
  const body = cellXml.slice(start.length).replace(value, '');
  const v = `<${prefix}v>${text}</${prefix}v>`;
  const formulaEnd = end.exec(body);
  if (!formulaEnd) return cellXml;
  const at = formulaEnd.index + formulaEnd[0].length;
  return setAttr(start, 't', type) + body.slice(0, at) + v + body.slice(at);
}

/**
 * Each row through `rowWithResults` with the results of its cells among `results` (in sheet order: by row, then
 * column). Found by a binary search per row: a piece open on the service's thread takes its own rows' results,
 * without a map of every result of the sheet being made for it (about 40 ms at 100,000 formulas).
 */
export function resultsRowRewrite(prefix: string, results: readonly RowResult[]): RowRewrite {
  return (slot) => {
    let at = firstOfRow(results, slot.number);
    if (at === results.length || results[at]!.row !== slot.number) return slot;
    const cells = new Map<number, FormulaResult>();
    for (; at < results.length && results[at]!.row === slot.number; at++)
      cells.set(results[at]!.column, results[at]!.result);
    const xml = rowWithResults(slot.xml, prefix, cells);
    return xml === slot.xml ? slot : { number: slot.number, xml };
  };
}

/** Where the first result at or below sheet row `row` is in `results` (sheet order). */
export function firstOfRow(results: readonly RowResult[], row: number): number {
  return lowerBound(results, (result) => result.row >= row);
}

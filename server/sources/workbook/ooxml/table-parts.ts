/**
 * The Excel tables ("Format as Table") of one worksheet, read from their parts (`xl/tables/tableN.xml`) and
 * edited in place: only the `ref` of the table and of its `<autoFilter>` change when rows come and go.
 */
import type { RowMap } from '../row-map.ts';
import { type Area, formatArea, parseArea } from './cell-area.ts';
import { decodeXml, getAttr, setAttr, tagPattern } from './xml-text.ts';

export interface TablePart {
  part: string;
  xml: string;
  name: string;
  area: Area | null;
  headerRow: boolean;
  totalsRow: boolean;
  /** Column names, left to right, and each one's calculated-column formula (no `=`) if it has one. */
  columns: string[];
  calculated: (string | undefined)[];
  changed: boolean;
}

const TABLE_COLUMN = /<((?:[\w.-]+:)?tableColumn)\b([^>]*?)(\/>|>([\s\S]*?)<\/\1>)/g;
const CALCULATED =
  /<(?:[\w.-]+:)?calculatedColumnFormula\b[^>]*>([\s\S]*?)<\/(?:[\w.-]+:)?calculatedColumnFormula>/;

export function readTablePart(part: string, xml: string): TablePart {
  const root = xml.match(tagPattern('table'))?.[0] ?? '';
  const headerRowCount = getAttr(root, 'headerRowCount');
  const totalsRowCount = getAttr(root, 'totalsRowCount');
  return {
    part,
    xml,
    name: getAttr(root, 'displayName') ?? getAttr(root, 'name') ?? '',
    area: parseArea(getAttr(root, 'ref')),
    headerRow: headerRowCount === undefined || headerRowCount !== '0',
    totalsRow: totalsRowCount !== undefined && totalsRowCount !== '0',
    ...readColumns(xml),
    changed: false,
  };
}

function readColumns(xml: string): Pick<TablePart, 'columns' | 'calculated'> {
  const columns: string[] = [];
  const calculated: (string | undefined)[] = [];
  for (const m of xml.matchAll(TABLE_COLUMN)) {
    columns.push(getAttr(m[2] ?? '', 'name') ?? '');
    const formula = m[4] === undefined ? undefined : CALCULATED.exec(m[4])?.[1];
    calculated.push(formula === undefined ? undefined : decodeXml(formula).replace(/^=/, ''));
  }
  return { columns, calculated };
}

/** Sets the table's range (and its auto filter's, which spans the same rows without the totals row). */
export function setTableArea(table: TablePart, area: Area, totalsRow = table.totalsRow): void {
  const ref = formatArea(area);
  let xml = table.xml.replace(tagPattern('table'), (tag) => {
    let next = setAttr(tag, 'ref', ref);
    if (!totalsRow && table.totalsRow) next = setAttr(next, 'totalsRowCount', undefined);
    return next;
  });
  const filterArea = { ...area, bottom: area.bottom - (totalsRow ? 1 : 0) };
  xml = xml.replace(tagPattern('autoFilter'), (tag) => setAttr(tag, 'ref', formatArea(filterArea)));
  table.xml = xml;
  table.area = area;
  table.totalsRow = totalsRow;
  table.changed = true;
}

/** After rows were deleted: the table moves and shrinks with the cells it covers. */
export function shiftTable(table: TablePart, rows: RowMap): void {
  if (!table.area) return;
  const span = rows.span(table.area.top, table.area.bottom);
  if (!span) return;
  const totalsRow = table.totalsRow && rows.row(table.area.bottom) !== null;
  const area = { ...table.area, top: span[0], bottom: span[1] };
  if (area.top === table.area.top && area.bottom === table.area.bottom && totalsRow === table.totalsRow)
    return;
  setTableArea(table, area, totalsRow);
}

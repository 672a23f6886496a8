/**
 * Reading a whole spreadsheet in one Sheets call: `spreadsheets.get` with grid data, narrowed by a field mask to
 * titles, ids, grid sizes and, per cell, the effective value, the displayed text, the formula if any and the
 * number format type.
 * One call (one unit of Google's read quota) gives both the typed and the formatted values.
 */
import type { TabSnapshot } from '../source.ts';
import { buildTab, type Grid } from '../tab.ts';
import type { GoogleCellData } from './cells.ts';
import { dateFormatOf, holdsNumber, typeCell } from './cells.ts';
import type { GoogleClients } from './client.ts';
import { DateCells } from './date-cells.ts';

export const READ_FIELDS =
  'properties.title,sheets(properties(sheetId,title,index,gridProperties(rowCount,columnCount)),' +
  'data(startRow,startColumn,rowData(values(effectiveValue,formattedValue,userEnteredValue/formulaValue,' +
  'effectiveFormat/numberFormat,userEnteredFormat/numberFormat))))';

/** A tab's place in the grid, which writes need (Google addresses rows by index and tabs by title or id). */
export interface SheetMeta {
  sheetId: number;
  title: string;
  rowCount: number;
  columnCount: number;
  /** The number formats of the cells formatted as dates, for writes of ISO text and numbers (date-cells.ts). */
  dates: DateCells;
}

export interface ReadBook {
  title: string;
  tabs: TabSnapshot[];
  sheets: Map<string, SheetMeta>;
}

interface GridDataJson {
  startRow?: number | null;
  startColumn?: number | null;
  rowData?: { values?: GoogleCellData[] | null }[] | null;
}

function gridOf(data: GridDataJson[] | null | undefined, dates: DateCells): Grid {
  const rows: (ReturnType<typeof typeCell>[] | undefined)[] = [];
  for (const block of data ?? []) {
    const row0 = block.startRow ?? 0;
    const col0 = block.startColumn ?? 0;
    (block.rowData ?? []).forEach((rowData, r) => {
      const values = rowData.values ?? [];
      if (values.length === 0) return;
      const row = rows[row0 + r] ?? [];
      rows[row0 + r] = row;
      values.forEach((cell, c) => {
        row[col0 + c] = typeCell(cell);
        const date = dateFormatOf(cell);
        if (date) dates.set(row0 + r, col0 + c, date, holdsNumber(cell));
      });
    });
  }
  return rows;
}

export async function readBook(clients: GoogleClients, spreadsheetId: string): Promise<ReadBook> {
  const { data } = await clients.sheets.spreadsheets.get({
    spreadsheetId,
    includeGridData: true,
    fields: READ_FIELDS,
  });
  const tabs: TabSnapshot[] = [];
  const sheets = new Map<string, SheetMeta>();
  for (const sheet of data.sheets ?? []) {
    const props = sheet.properties ?? {};
    const id = String(props.sheetId ?? 0);
    const title = props.title ?? '';
    const dates = new DateCells();
    sheets.set(id, {
      sheetId: props.sheetId ?? 0,
      title,
      rowCount: props.gridProperties?.rowCount ?? 0,
      columnCount: props.gridProperties?.columnCount ?? 0,
      dates,
    });
    tabs.push(buildTab(id, title, gridOf(sheet.data as GridDataJson[] | undefined, dates)));
  }
  return { title: data.properties?.title ?? '', tabs, sheets };
}

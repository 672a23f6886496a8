/**
 * A workbook for the MCP suites, written by openpyxl (another program than SheetPort): an `Orders` tab of 120
 * rows (Customer, City, Amount, Shipped, Notes) where row 3's note is 2,000 characters long, and a `Notes` tab.
 */
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Harness, startHarness } from './harness.ts';
import { type AnyJson, callOk, type McpTransportName, mcpClient } from './mcp-client.ts';
import { runPython } from './openpyxl.ts';

export const ORDER_ROWS = 120;
export const LONG_NOTE_ROW = 3;
const CITIES = ['Lima', 'Oslo', 'Porto', 'Quito'];

export async function writeOrdersWorkbook(dir: string, fileName = 'orders.xlsx'): Promise<string> {
  const file = path.join(dir, fileName);
  await runPython(
    `
import sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Orders'
ws.append(['Customer', 'City', 'Amount', 'Shipped', 'Notes'])
cities = ${JSON.stringify(CITIES)}
for i in range(1, ${ORDER_ROWS} + 1):
    note = ('long ' * 400).strip() if i == ${LONG_NOTE_ROW} else 'note %d' % i
    ws.append(['Customer %03d' % i, cities[i % 4], i * 10 + 0.5, i % 2 == 0, note])
other = wb.create_sheet('Notes')
other.append(['Key', 'Value'])
other.append(['a', 1])
wb.save(sys.argv[1])
`,
    [file],
  );
  return file;
}

/** Sets cells of `tab` and saves, as a user's save in a spreadsheet program would (openpyxl, in place). */
export async function saveWithOpenpyxl(
  file: string,
  tab: string,
  cells: Record<string, unknown>,
): Promise<void> {
  await runPython(
    `
import sys, json, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
ws = wb[sys.argv[2]]
for address, value in json.loads(sys.argv[3]).items():
    ws[address] = value
wb.save(sys.argv[1])
`,
    [file, tab, JSON.stringify(cells)],
  );
}

/** The rows of `tab` as openpyxl reads them (values only, header first). */
export async function rowsByOpenpyxl(file: string, tab: string): Promise<unknown[][]> {
  const out = await runPython(
    `
import sys, json, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])[sys.argv[2]]
print(json.dumps([list(r) for r in ws.iter_rows(values_only=True)], default=str))
`,
    [file, tab],
  );
  return JSON.parse(out) as unknown[][];
}

/** A harness with the orders workbook connected and an MCP client of its key, over the transport named. */
export async function openOrdersSession(transport: McpTransportName): Promise<{
  h: Harness;
  file: string;
  sheetId: string;
  client: Client;
  close(): Promise<void>;
}> {
  const h = await startHarness();
  const file = await writeOrdersWorkbook(h.dir);
  await h.connectBook(file);
  const client = await mcpClient(transport, h, h.key);
  const listed = await callOk(client, 'list_sheets');
  const sheetId = listed.spreadsheets[0].sheets.find((s: AnyJson) => s.name === 'Orders').sheet_id;
  return {
    h,
    file,
    sheetId,
    client,
    async close() {
      await client.close();
      await h.close();
    },
  };
}

/** The Source contract (contract.ts) for the workbook kind: an .xlsx file and a .csv file, opened through the registry. */
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { openSource } from '../../../server/sources/index.ts';
import type { CellValue } from '../../../server/sources/source.ts';
import { type ContractFactory, sourceContract } from '../contract.ts';

/** Another program's save: a whole new file written beside and renamed over the original, as Excel does. */
async function saveAs(file: string, bytes: Buffer | string): Promise<void> {
  const temp = `${file}.tmp-save`;
  await writeFile(temp, bytes);
  const { rename } = await import('node:fs/promises');
  await rename(temp, file);
}

async function xlsxBytes(header: string[], rows: CellValue[][]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('People');
  ws.addRow(header);
  for (const row of rows) ws.addRow(row);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const csvField = (v: CellValue) => (v === null ? '' : String(v));
const csvText = (header: string[], rows: CellValue[][]) =>
  `${[header, ...rows].map((r) => r.map(csvField).join(',')).join('\n')}\n`;

function workbookFactory(ext: '.xlsx' | '.csv'): ContractFactory {
  const bytes = (header: string[], rows: CellValue[][]) =>
    ext === '.xlsx' ? xlsxBytes(header, rows) : Promise.resolve(csvText(header, rows));
  return {
    name: `workbook ${ext}`,
    async create(header, rows) {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-contract-'));
      const file = path.join(dir, `people${ext}`);
      await writeFile(file, await bytes(header, rows));
      // A poll slower than any test, so only the folder watch can report the outside save.
      const source = openSource({ sourceKind: 'workbook', location: file }, { pollMs: 600_000 });
      const lockFile = path.join(dir, `~$people${ext}`);
      return {
        source,
        sheetId: (await source.read()).tabs[0]!.sourceSheetId,
        editOutside: async (h, r) => saveAs(file, await bytes(h, r)),
        async lock() {
          await writeFile(lockFile, 'held by Excel');
          return () => unlink(lockFile);
        },
        remove: () => unlink(file),
        async dispose() {
          await source.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

sourceContract(workbookFactory('.xlsx'));
sourceContract(workbookFactory('.csv'));

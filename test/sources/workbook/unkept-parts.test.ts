import fs from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { PLAIN, removeTempDirs, sha, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

/** Adds a chart part to a workbook ExcelJS wrote, as Excel would when the user inserts a chart. */
async function withChartPart(file: string): Promise<void> {
  const zip = await JSZip.loadAsync(await fs.readFile(file));
  zip.file(
    'xl/charts/chart1.xml',
    '<?xml version="1.0"?><c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart"/>',
  );
  await fs.writeFile(file, await zip.generateAsync({ type: 'nodebuffer' }));
}

describe('workbooks with parts a save would drop', () => {
  it('reads them, but refuses writes with 409 conflict and leaves the file byte-identical', async () => {
    const file = path.join(await tempDir(), 'chart.xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Data');
    ws.addRow(['Month', 'Sales']);
    ws.addRow(['Jan', 10]);
    await wb.xlsx.writeFile(file);
    await withChartPart(file);

    const source = createWorkbookSource(file);
    const snapshot = await source.read();
    expect(snapshot.tabs[0]!.typed).toEqual([['Jan', 10]]);
    const before = await sha(file);
    await expect(
      source.write(snapshot.tabs[0]!.sourceSheetId, [{ op: 'append', values: { Month: 'Feb' } }], PLAIN),
    ).rejects.toMatchObject({ code: 'conflict', status: 409, details: { unsupported_features: ['charts'] } });
    expect(await sha(file)).toBe(before);
    await source.close();
  });
});

import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDemoWorkbook } from '../../../server/sources/workbook/demo.ts';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { readWithOpenpyxl } from '../../helpers/openpyxl.ts';
import { removeTempDirs, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

describe('createDemoWorkbook', () => {
  it('creates Orders and Products tabs with every value type, deterministically', async () => {
    const dir = await tempDir();
    const a = path.join(dir, 'a.xlsx');
    const b = path.join(dir, 'b.xlsx');
    await createDemoWorkbook(a);
    await createDemoWorkbook(b);
    const snapA = await createWorkbookSource(a).read();
    const snapB = await createWorkbookSource(b).read();
    expect(snapA.tabs).toEqual(snapB.tabs);

    const [orders, products] = snapA.tabs;
    expect(orders?.name).toBe('Orders');
    expect(orders?.header).toEqual([
      'Order ID',
      'Customer',
      'Email',
      'Product',
      'Quantity',
      'Unit Price',
      'Total',
      'Order Date',
      'Shipped',
      'Notes',
    ]);
    expect(orders?.typed.length).toBe(300);
    const first = orders?.typed[0] ?? [];
    expect(first[0]).toBe('ORD-0001');
    expect(first[6]).toBeCloseTo((first[4] as number) * (first[5] as number), 2);
    expect(first[7]).toMatch(/^2024-\d\d-\d\d$/);
    expect(typeof first[8]).toBe('boolean');
    expect(orders?.formatted[0]?.[5]).toMatch(/^\$\d[\d,]*\.\d\d$/);
    expect(orders?.typed.some((r) => r[1] === 'Zoë Ångström')).toBe(true);
    const notes = orders?.typed.filter((r) => r[9] !== null).length ?? 0;
    expect(notes).toBeGreaterThan(0);
    expect(notes).toBeLessThan(100);
    expect(orders?.typed.at(-1)?.[0]).toBe('ORD-0300');

    expect(products?.name).toBe('Products');
    expect(products?.header).toEqual(['SKU', 'Name', 'Category', 'Price', 'In Stock']);
    expect(products?.typed.length).toBe(15);
    expect(products?.typed.map((r) => r[0])).toContain('007');

    const sheet = (await readWithOpenpyxl(a)).sheets[0];
    expect(sheet?.freeze).toBe('A2');
    expect(sheet?.cells.A1).toMatchObject({ bold: true, fill: 'FF2F5597' });
    expect(sheet?.cells.G2?.value).toBe('=E2*F2');
    expect(sheet?.cells.H2?.numFmt).toBe('yyyy-mm-dd');
    expect(sheet?.widths.B).toBe(24);
  });
});

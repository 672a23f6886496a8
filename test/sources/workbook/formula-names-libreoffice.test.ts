/**
 * Defined names of every kind, absolute whole columns and OFFSET, computed by the service as LibreOffice computes
 * the same file (helpers/libreoffice-formulas.ts). The parser answered #NAME? for a name of a constant or a formula
 * (formulas/defined-names.ts), 0 for a name of three letters or fewer (read as a column), no cells for `$A:$A`
 * and `$2:$2` (formula-text.ts `withoutAbsoluteMarks`), and had no OFFSET (formulas/offset.ts; past the sheet's
 * edge it is #REF!, as Excel documents, where LibreOffice says #VALUE!: short-names.test.ts).
 */
import { itComputesAsLibreOffice } from '../../helpers/libreoffice-formulas.ts';

const FORMULAS = [
  'TaxRate*100',
  'Gross',
  'Greeting&"!"',
  'Qty*2',
  'SUM(Amounts)',
  'SUM(Grown)',
  'COUNT(Grown)',
  'SUMIF(Data!$A:$A,">2",Data!$C:$C)',
  'VLOOKUP(3,Data!$A:$C,3,FALSE)',
  'COUNTIF(Data!$B:$B,"a")',
  'SUM(Data!$3:$3)',
  'SUMPRODUCT((Data!$A:$A>1)*Data!$C:$C)',
  'SUM(OFFSET(Data!A1,1,2,3,1))',
  'OFFSET(Data!A1,2,1)',
  'SUM(OFFSET(Data!C2,0,0,COUNT(Data!C:C),1))',
  'ROWS(OFFSET(Data!A1,0,0,4,2))',
  'COLUMNS(OFFSET(Data!A1:B2,1,1))',
  'SUM(OFFSET(Data!B2:C3,1,1))',
];

const DATA = `
from openpyxl.workbook.defined_name import DefinedName
d.title = 'Data'
d.append(['N', 'Tag', 'Amount'])
for row in [[1, 'a', 10], [2, 'b', 20], [3, 'a', 30], [4, 'c', 40], [5, 'a', 50]]:
    d.append(row)
for name, text in [('TaxRate', '0.2'), ('Gross', '100*(1+TaxRate)'), ('Greeting', '"hi"'), ('Qty', 'Data!$A$4'),
                   ('Amounts', 'Data!$C$2:$C$6'), ('Grown', 'OFFSET(Data!$C$2,0,0,COUNT(Data!$C:$C),1)')]:
    wb.defined_names.append(DefinedName(name, attr_text=text))
`;

itComputesAsLibreOffice(
  'computes defined names, absolute whole columns and OFFSET as LibreOffice does',
  'names.xlsx',
  DATA,
  FORMULAS,
);

/**
 * Functions of one value given a range, called once per cell (formulas/lifted-calls.ts) as Excel computes them
 * inside SUMPRODUCT: the information, text, date and maths functions spreadsheets wrap around a column, each
 * computed by the service as LibreOffice computes the same file (helpers/libreoffice-formulas.ts). The functions
 * that came from the Analysis ToolPak (EDATE, EOMONTH, MROUND, QUOTIENT) are #VALUE! over a range in
 * both; over an array (`EDATE(A2,B2:B9+0)`) Excel takes each cell and LibreOffice answers #VALUE!, so that case is
 * Excel's in formulas/lifted-calls.test.ts, with IFNA (LibreOffice's takes no array).
 */
import { itComputesAsLibreOffice } from '../../helpers/libreoffice-formulas.ts';

const FORMULAS = [
  'SUMPRODUCT(--ISBLANK(Data!A2:A6))',
  'SUMPRODUCT(--ISNONTEXT(Data!B2:B6))',
  'SUMPRODUCT(--ISEVEN(Data!C2:C6))',
  'SUMPRODUCT(--ISODD(Data!C2:C6+1))',
  'SUMPRODUCT(CODE(Data!D2:D5))',
  'SUMPRODUCT(LEN(SUBSTITUTE(Data!D2:D6,"p","")))',
  'SUMPRODUCT(LEN(REPLACE(Data!D2:D6,1,1,"zz")))',
  'SUMPRODUCT(LEN(REPT(Data!B2:B6,2)))',
  'SUMPRODUCT(--(TEXT(Data!C2:C6,"000")="010"))',
  'SUMPRODUCT(CODE(CHAR(Data!C2:C6+55)))',
  'SUMPRODUCT(--(CLEAN(Data!D2:D6)=Data!D2:D6))',
  'SUMPRODUCT(YEAR(DATE(2020,Data!C2:C6,1)))',
  'SUMPRODUCT(HOUR(Data!E2:E6))',
  'SUMPRODUCT(MINUTE(Data!E2:E6))',
  'SUMPRODUCT(SECOND(Data!E2:E6))',
  'SUMPRODUCT(EOMONTH(45000,Data!A2:A6))',
  'SUMPRODUCT(EDATE(45000,Data!C2:C6))',
  'SUMPRODUCT(WEEKNUM(45000+Data!C2:C6))',
  'SUMPRODUCT(WEEKNUM(Data!C2:C6))',
  'SUMPRODUCT(TRUNC(Data!E2:E6))',
  'SUMPRODUCT(FLOOR(Data!C2:C6,7))',
  'SUMPRODUCT(CEILING(Data!C2:C6,7))',
  'SUMPRODUCT(MROUND(Data!C2:C6,7))',
  'SUMPRODUCT(QUOTIENT(Data!C2:C6,7))',
  'SUMPRODUCT(EVEN(Data!E2:E6))',
  'SUMPRODUCT(ODD(Data!E2:E6))',
  'SUMPRODUCT(EXP(Data!A2:A3))',
  'SUMPRODUCT(LN(Data!C2:C6))',
  'SUMPRODUCT(LOG10(Data!C2:C6))',
  'SUMPRODUCT(LOG(Data!C2:C6,2))',
  'SUMPRODUCT(POWER(Data!A2:A6,2))',
  'SUMPRODUCT(IFERROR(VALUE(Data!D2:D6),0))',
  'SUMPRODUCT(IFERROR(DATEVALUE(Data!F2:F6),0))',
  'SUMPRODUCT(ROUND(TIMEVALUE(Data!G2:G6)*24,6))',
];

const DATA = `
d.title = 'Data'
d.append(['Num', 'Text', 'Amount', 'Mixed', 'Fraction', 'Date text', 'Time text'])
for row in [[1, 'a', 10, 'Apple', 1.25, '2024-03-01', '06:30'], [2, 'b', 20, 'apple', 2.5, '2024-12-31', '18:00'],
            [3, None, 30, '5', 3.75, 'x', '23:59:59'], [None, 'c', 40, 'x', 4.5, '1999-01-15', 'y'],
            [5, 'd', 50, None, 0.1, None, None]]:
    d.append(row)
`;

itComputesAsLibreOffice(
  'computes functions of one value over ranges, cell by cell, as LibreOffice does',
  'lifted.xlsx',
  DATA,
  FORMULAS,
);

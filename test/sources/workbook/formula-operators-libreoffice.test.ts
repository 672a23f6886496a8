/**
 * The formula operators over blank cells, text and whole ranges (formulas/operators.ts), blank cells given to
 * functions (parser.ts `blanksAsNothing`), functions of one value over ranges (formulas/lifted-calls.ts), and ranges
 * past a tab's last row (formulas/range-extent.ts), computed by the service as LibreOffice computes the same file
 * (helpers/libreoffice-formulas.ts). Arrays are compared inside SUMPRODUCT, where Excel and LibreOffice alike take
 * every cell of a range (elsewhere an older spreadsheet takes the cell of the formula's own row). Logical values
 * are left out of comparisons with text: LibreOffice has no logical type (TRUE is 1 to it).
 */
import { itComputesAsLibreOffice } from '../../helpers/libreoffice-formulas.ts';

const FORMULAS = [
  'SUMPRODUCT((Data!A2:A6>2)*Data!C2:C6)',
  'SUMPRODUCT(--(Data!B2:B6="A"))',
  'SUMPRODUCT((Data!A2:A6>=2)*(Data!B2:B6<>"b")*Data!C2:C6)',
  'SUMPRODUCT(Data!A2:A6*Data!C2:C6)',
  'SUMPRODUCT((Data!B2:B6="")*1)',
  'SUMPRODUCT((Data!A2:A6=0)*1)',
  'SUMPRODUCT(Data!C2:C6/10)',
  'SUMPRODUCT((Data!A2:A6+Data!C2:C6)^2)',
  'SUMPRODUCT(Data!C2:C6*{1;0;1;0;1})',
  'SUMPRODUCT(-Data!C2:C6)',
  'SUMPRODUCT(Data!C2:C6%)',
  'SUMPRODUCT({1,2}*{3;4})',
  'SUMPRODUCT((Data!D2:D6>"b")*1)',
  'SUMPRODUCT((Data!D2:D6="APPLE")*Data!C2:C6)',
  'SUMPRODUCT((Data!A2:B6>1)*1)',
  'SUMPRODUCT(Data!C2:C6*(Data!A2:A6<>""))',
  'IF(Data!A5="","empty","full")',
  'IF(Data!A5=0,"zero","other")',
  'IF(Data!B4<>"","full","empty")',
  'LEN(Data!A5)',
  'UPPER(Data!B4)&"|"',
  'ROUND(Data!A5,0)',
  'Data!A5&"x"',
  'Data!A5+1',
  '-Data!A5',
  'Data!B2="A"',
  '0.1+0.2=0.3',
  '"5"+1',
  '"x"+1',
  '1/0',
  '"abc"<"abd"',
  '"Z">"a"',
  '1<"1"',
  '0.1+0.2&""',
  '1/4&""',
  '12345.5&""',
  'COUNTIF(Data!A2:A20,"")',
  'COUNTIF(Data!A2:A20,"<>1")',
  'COUNTBLANK(Data!A2:A20)',
  'SUMPRODUCT((Data!A2:A20="")*1)',
  'COUNTIF(Data!A:A,"")',
  'COUNTIFS(Data!A:A,">1",Other!A:A,">1")',
  'SUMIFS(Other!A:A,Data!A:A,"")',
  'SUMPRODUCT(Data!C2:C20,Other!A2:A20)',
  'SUMPRODUCT(Data!C:C,Other!A:A)',
  'INDEX(Data!A2:A20,10)',
  'INDEX(Other!A:A,MATCH(7,Other!A:A,0))',
  'INDEX(Data!A1:D6,3,4)',
  'Data!A20',
  'SUMPRODUCT(LEN(Data!D2:D6))',
  'SUMPRODUCT(--ISNUMBER(SEARCH("p",Data!D2:D6)))',
  'SUMPRODUCT(IF(Data!A2:A6>2,Data!C2:C6,0))',
  'SUMPRODUCT(IFERROR(1/Data!A2:A6,0))',
  'SUMPRODUCT(ROUND(Data!C2:C6/3,0))',
  'SUMPRODUCT(--(LEFT(Data!D2:D6,1)="a"))',
  'SUMPRODUCT(MOD(Data!C2:C6,{3,4}))',
  'SUMPRODUCT((Data!A:A="")*1)',
  'SUMPRODUCT(--(Data!B:B<>"x"))',
  'SUMPRODUCT((Data!A:A=0)+(Other!A:A>5))',
  'SUMPRODUCT(--ISBLANK(Data!C:C))',
  'SUMPRODUCT(LEN(Data!B:B&"ab"))',
  'SUMPRODUCT(1/Data!C:C)',
  'SUMPRODUCT((Data!A:A="")*1,Other!A:A+1)',
];

const DATA = `
d.title = 'Data'
d.append(['Num', 'Text', 'Amount', 'Mixed'])
for row in [[1, 'a', 10, 'Apple'], [2, 'b', 20, 'apple'], [3, None, 30, '5'], [None, 'c', 40, 'x'], [5, 'd', 50, None]]:
    d.append(row)
o = wb.create_sheet('Other')
o.append(['N'])
for n in range(1, 11):
    o.append([n])
`;

itComputesAsLibreOffice(
  'computes operators over blanks, text and ranges, and ranges past the last row, as LibreOffice does',
  'operators.xlsx',
  DATA,
  FORMULAS,
);

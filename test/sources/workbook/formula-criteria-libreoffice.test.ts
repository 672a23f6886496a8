/**
 * Criteria and wildcards (formulas/criteria.ts, formulas/wildcard.ts), VLOOKUP and HLOOKUP
 * (formulas/table-lookups.ts), REPT, TRIM, SUBSTITUTE and TEXT (formulas/text-functions.ts) and the working-day
 * functions (formulas/workday-functions.ts) computed by the service agree with an independent spreadsheet: openpyxl writes a workbook of formulas without results, the service computes them
 * when the tab is read over HTTP, and LibreOffice computes the same file. Only forms where LibreOffice reads
 * criteria as Excel does are compared: LibreOffice has no logical type (TRUE is 1 to it), counts numbers for
 * `"*"`, keeps a number criterion from matching text that reads as it, and knows MAXIFS only by its `_xlfn.`
 * name; those are covered against Excel's rules in formulas/criteria.test.ts.
 */
import { itComputesAsLibreOffice } from '../../helpers/libreoffice-formulas.ts';

const FORMULAS = [
  'COUNTIF(Data!A:A,"apple")',
  'COUNTIF(Data!A:A,"=APPLE")',
  'COUNTIF(Data!A:A,"a*")',
  'COUNTIF(Data!A:A,"?pple")',
  'COUNTIF(Data!A:A,"*an*")',
  'COUNTIF(Data!A:A,"a~*c")',
  'COUNTIF(Data!A:A,"b?x")',
  'COUNTIF(Data!A:A,"5")',
  'COUNTIF(Data!A:A,">4")',
  'COUNTIF(Data!A:A,"<=5")',
  'COUNTIF(Data!A:A,">b")',
  'COUNTIF(Data!A:A,">=2024-03-01")',
  'COUNTIF(Data!A2:A13,"")',
  'COUNTIF(Data!A2:A13,"=")',
  'COUNTIF(Data!A2:A13,"<>")',
  'COUNTIF(Data!A2:A13,0)',
  'COUNTIF(Data!A2:A13,"<>apple")',
  'SUMIF(Data!A:A,"apple",Data!B:B)',
  'SUMIF(Data!A:A,"apple",Data!B1)',
  'SUMIF(Data!C:C,"x",Data!B:B)',
  'SUMIF(Data!B:B,">100")',
  'AVERAGEIF(Data!A:A,"5",Data!B:B)',
  'AVERAGEIF(Data!A:A,"pear",Data!B:B)',
  'COUNTIFS(Data!A:A,"a*",Data!C:C,"x")',
  'SUMIFS(Data!B:B,Data!A:A,"a*",Data!C:C,"X")',
  'AVERAGEIFS(Data!B:B,Data!A:A,">4",Data!C:C,"x")',
  'COUNTIFS(Data!A2:A13,"a*",Data!C2:C12,"x")',
  'VLOOKUP("?anana",Data!A:B,2,FALSE)',
  'VLOOKUP("an*",Data!A:B,2,FALSE)',
  'MATCH("BAN*",Data!A:A,0)',
  'MATCH("A~*C",Data!A:A,0)',
  'SEARCH("n?n","banana")',
  'SEARCH("A*N","xbanana")',
  'VLOOKUP(25,Rates!A:B,2,TRUE)',
  'VLOOKUP(99,Rates!A:B,2)',
  'VLOOKUP(10,Rates!A:B,2,1)',
  'VLOOKUP(-1,Rates!A:B,2,TRUE)',
  'VLOOKUP("BZ",Rates!D2:E4,2,TRUE)',
  'VLOOKUP("zzz",Rates!D2:E4,2)',
  'VLOOKUP("BANANA",Rates!D2:E4,2,FALSE)',
  'HLOOKUP(15,Rates!G1:J2,2,TRUE)',
  'HLOOKUP(99,Rates!G1:J2,2)',
  'HLOOKUP("c*",Rates!D2:E4,1,FALSE)',
  'HLOOKUP("CHERRY",Rates!G4:I5,2,FALSE)',
  'REPT("ab",3)',
  'REPT("ab",2.9)',
  'TRIM("  a   b  ")',
  'SUBSTITUTE("a-b-c","-","+")',
  'SUBSTITUTE("aXa","a","b",1)',
  'SUBSTITUTE("aXa","a","b",2)',
  'SUBSTITUTE("aaa","aa","b",2)',
  'SUBSTITUTE(Data!B3,"4","x")',
  'TEXT(1234.5,"#,##0.00")',
  'TEXT(DATE(2024,3,1),"yyyy-mm-dd")',
  'TEXT(0.5,"0%")',
  'WORKDAY(DATE(2024,3,1),5)',
  'WORKDAY(DATE(2024,3,1),-5)',
  'WORKDAY(DATE(2024,3,1),3,Rates!L1:L2)',
  'NETWORKDAYS(DATE(2024,3,1),DATE(2024,3,31))',
  'NETWORKDAYS(DATE(2024,3,31),DATE(2024,3,1),Rates!L1:L2)',
  'NETWORKDAYS.INTL(DATE(2024,3,1),DATE(2024,3,31),11)',
  'WORKDAY.INTL(DATE(2024,3,1),3,"0000110")',
];

const DATA = `
d.title = 'Data'
d.append(['Name', 'Amount', 'Kind'])
names = ['Apple', 'apple', 'APPLES', 5, '5', 12, 'banana', None, 'TRUE', 45352, 'a*c', 'Box']
kinds = ['x', 'y', 'x', 'x', 'y', 'x', 'x', 'y', 'x', 'x', 'y', 'x']
for i, (name, kind) in enumerate(zip(names, kinds)):
    d.append([name, 2 ** i, kind])
r = wb.create_sheet('Rates')
r.append(['Key', 'Rate', None, 'Fruit', 'Price', None, 0, 10, 20, 30, None, 45355])
r.append([0, 'none', None, 'apple', 1, None, 'a', 'b', 'c', 'd', None, 45356])
r.append([10, 'low', None, 'Banana', 2])
r.append([20, 'mid', None, 'cherry', 3, None, 'apple', 'Banana', 'cherry'])
r.append([30, 'high', None, None, None, None, 1, 2, 3])
`;

itComputesAsLibreOffice(
  'computes every criterion and wildcard as LibreOffice does',
  'criteria.xlsx',
  DATA,
  FORMULAS,
);

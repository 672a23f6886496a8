/**
 * Lookups, dates, text and references as spreadsheets write them, computed by the service as LibreOffice computes
 * the same file (helpers/libreoffice-formulas.ts). SEARCH took text without wildcards with regard to case (and as
 * a RegExp), VALUE read no dates, HYPERLINK and INDIRECT were not computed (formulas/text-functions.ts,
 * functions.ts). Left out, where LibreOffice is not Excel: IFNA around MATCH (LibreOffice: #N/A), SUM of a literal
 * "5" (Excel counts it), and the functions LibreOffice answers #NAME? for in a file openpyxl wrote.
 */
import { itComputesAsLibreOffice } from '../../helpers/libreoffice-formulas.ts';

const FORMULAS = [
  'VLOOKUP(25,Data!C2:D6,2,TRUE)',
  'INDEX(Data!A2:D6,MATCH("c",Data!B2:B6,0),MATCH("Text",Data!A1:D1,0))',
  'MATCH(35,Data!C2:C6,1)',
  'MATCH(35,{50,40,30,20,10},-1)',
  'AVERAGEIFS(Data!C:C,Data!B:B,"a",Data!C:C,">10")',
  'SUMIFS(Data!C:C,Data!E:E,">="&DATE(2024,1,1))',
  'COUNTIFS(Data!D:D,"?oo",Data!A:A,"<5")',
  'ROUND(1234.567,-2)',
  'TEXT(0.256,"0.0%")',
  'TEXT(Data!E2,"dd/mm/yyyy")',
  'TEXT(Data!E2,"mmm d, yyyy")',
  'TEXT(45000.75,"h:mm AM/PM")',
  'DATEVALUE("2024-03-15")',
  'VALUE("3/15/2024")',
  'WEEKNUM(Data!E2,2)',
  'DATEDIF(Data!E2,Data!E3,"m")',
  'DATEDIF(Data!E2,Data!E3,"ym")',
  'EDATE(Data!E2,-1)',
  'WORKDAY(Data!E2,10)',
  'DAY(EOMONTH(Data!E4,0))',
  'IF(ISBLANK(Data!D6),"empty",Data!D6)',
  'IFERROR(1/0,"div")',
  'LEN(TRIM(CONCATENATE("  a"," b  ")))',
  'UPPER(LEFT(Data!B2))&LOWER(MID(Data!D2,2,99))',
  'FIXED(1234.567,1)',
  'DOLLAR(1234.5)',
  'REPLACE("abcdef",2,3,"X")',
  'SEARCH("M",Data!D3)',
  'SEARCH("o?n",Data!D3)',
  'RIGHT(Data!C2*10,2)',
  'Data!C2&""',
  'TEXT(Data!C2,"000")',
  'COUNT(Data!A:E)',
  'COUNTA(Data!A1:E6)',
  'SUMPRODUCT(--(Data!E2:E6>DATE(2024,1,31)))',
  'MAX(Data!E:E)-MIN(Data!E2:E5)',
  'AVERAGE(Data!A2:A6,100)',
  'PRODUCT(Data!A2:A6)',
  'SUMSQ(Data!A2:A4)',
  'MODE(Data!A2:A6,1,1)',
  'INT(Data!E3)',
  'Data!E3-Data!E2',
  'NOW()>Data!E2',
  'LOOKUP(3,Data!A2:A6,Data!B2:B6)',
  'TRANSPOSE(Data!A2:A3)',
  'SUM(Data!A2:B3)',
  'ADDRESS(2,3)',
  'INDIRECT("Data!C"&3)',
  'SUM(INDIRECT("Data!C2:C"&4))',
  'INDIRECT("B3")',
  'INDIRECT("nowhere")',
  'COLUMNS(Data!A1:E1)',
  'HYPERLINK("http://x","x")',
  'ROUND(RAND(),0)<2',
];

const DATA = `
import datetime
d.title = 'Data'
d.append(['N', 'Tag', 'Amount', 'Text', 'When'])
for row in [[1, 'a', 10, 'hello world', datetime.datetime(2024, 1, 15)],
            [2, 'b', 20, 'good morning', datetime.datetime(2024, 3, 31)],
            [3, 'a', 30, 'foo', datetime.datetime(2024, 12, 31)],
            [4, 'c', 40, 'boo', datetime.datetime(2024, 2, 29)],
            [5, 'a', 50, None, None]]:
    d.append(row)
`;

itComputesAsLibreOffice(
  'computes lookups, dates, text and references as LibreOffice does',
  'more.xlsx',
  DATA,
  FORMULAS,
);

/**
 * Functions spreadsheets use every day, the payment, cash-flow and statistical ones among them, computed by the
 * service as LibreOffice computes the same file (helpers/libreoffice-formulas.ts). The payment and cash-flow
 * functions (PMT, FV, NPV, IRR, ...) and PERCENTILE, QUARTILE, CORREL and their kind were not computed; CHOOSE
 * answered #VALUE!; MEDIAN and PERCENTILE took a range's text in (formulas/range-numbers.ts). Results with long
 * fractions are rounded in the formula: the two compute them with different floating-point steps.
 */
import { itComputesAsLibreOffice } from '../../helpers/libreoffice-formulas.ts';

const FORMULAS = [
  'AVERAGE(Data!$C:$C)',
  'MAX(Data!C2:C6)-MIN(Data!C2:C6)',
  'MEDIAN(Data!C2:C6)',
  'COUNTA(Data!B:B)',
  'SUMIFS(Data!C:C,Data!B:B,"a",Data!A:A,">1")',
  'AVERAGEIF(Data!B:B,"a",Data!C:C)',
  'INDEX(Data!C:C,MATCH("c",Data!B:B,0))',
  'VLOOKUP("b",Data!B:C,2,0)',
  'HLOOKUP("Tag",Data!A1:C3,2,FALSE)',
  'IFERROR(VLOOKUP("z",Data!B:C,2,0),"none")',
  'TEXT(1234.5,"#,##0.00")',
  'YEAR(Data!E3)',
  'EOMONTH(Data!E2,1)',
  'NETWORKDAYS(Data!E2,Data!E3)',
  'LEFT(Data!D2,3)&"-"&UPPER(RIGHT(Data!D2,2))',
  'PROPER("hello world")',
  'SUBSTITUTE(Data!D3," ","_")',
  'MID(Data!D2,2,3)',
  'IF(AND(Data!A3>1,Data!B3="b"),"yes","no")',
  'ROUNDUP(Data!C2/3,0)',
  'COUNTIFS(Data!B:B,"a",Data!C:C,">15")',
  'LARGE(Data!C2:C6,2)',
  'RANK(Data!C3,Data!C2:C6)',
  'SUM(INDEX(Data!A2:C6,0,3))',
  'COUNTIF(Data!D:D,"*o*")',
  'STDEV(Data!C2:C6)',
  'CEILING(22,5)',
  'FLOOR(22,5)',
  'CHOOSE(2,"x","y","z")',
  'CHOOSE(Data!A3,Data!B2,Data!B3,Data!B4)',
  'ROUND(PMT(0.05/12,60,-10000),6)',
  'ROUND(FV(0.05,10,-100),6)',
  'ROUND(PV(0.04,5,-200),6)',
  'ROUND(NPER(0.01,-100,1000),6)',
  'ROUND(RATE(36,-300,10000),9)',
  'ROUND(IPMT(0.1/12,1,36,8000),6)',
  'ROUND(PPMT(0.1/12,1,36,8000),6)',
  'ROUND(NPV(0.1,Data!C2:C6),6)',
  'ROUND(IRR({-100,30,40,50}),9)',
  'ROUND(IRR(Data!F2:F6),9)',
  'PERCENTILE(Data!C2:C6,0.9)',
  'QUARTILE(Data!C2:C6,1)',
  'ROUND(CORREL(Data!A2:A6,Data!C2:C6),9)',
  'SLOPE(Data!C2:C6,Data!A2:A6)',
  'RSQ(Data!C2:C6,Data!A2:A6)',
  'FORECAST(6,Data!C2:C6,Data!A2:A6)',
  'ROUND(GEOMEAN(Data!C2:C6),9)',
  'SLN(10000,1000,5)',
  'ROUND(DDB(10000,1000,5,1),6)',
  'ROUND(DB(10000,1000,5,1),6)',
  'ROUND(EFFECT(0.05,12),9)',
  'ROUND(NOMINAL(0.05,12),9)',
  'COVAR(Data!A2:A6,Data!C2:C6)',
  'PERCENTILE(Data!B2:C6,0.5)',
  'ROUND(XNPV(0.1,Data!C2:C4,Data!E2:E4),6)',
  'MEDIAN(Data!B2:C6)',
];

const DATA = `
import datetime
d.title = 'Data'
d.append(['N', 'Tag', 'Amount', 'Text', 'When'])
for row in [[1, 'a', 10, 'hello world', datetime.datetime(2024, 1, 15), -100], [2, 'b', 20, 'good morning', datetime.datetime(2024, 3, 31), 30],
            [3, 'a', 30, 'foo', datetime.datetime(2024, 12, 31), 40], [4, 'c', 40, 'bar', datetime.datetime(2024, 2, 29), None], [5, 'a', 50, None, None, 50]]:
    d.append(row)
`;

itComputesAsLibreOffice(
  'computes everyday, payment and statistical functions as LibreOffice does',
  'functions.xlsx',
  DATA,
  FORMULAS,
);

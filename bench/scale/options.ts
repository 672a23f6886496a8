/**
 * The scale benchmark's command line: `--sizes 100000,300000`, `--kinds xlsx,csv`, `--writes 15`, and
 * `--formulas`, which gives the .xlsx a Total column with a formula in every row (as openpyxl writes them).
 */
import { parseArgs } from 'node:util';

export type Kind = 'xlsx' | 'csv';

export interface ScaleOptions {
  /** Data rows of each generated tab (the header comes on top). */
  sizes: number[];
  kinds: Kind[];
  /** How many of each write (delete, append, update) a run times. */
  writes: number;
  /** The .xlsx has an eleventh column, `Total`, holding `=F{row}*G{row}` without a cached result. */
  formulas: boolean;
}

/** Excel's last row is 1,048,576; with the header in row 1 that leaves this many data rows. */
export const EXCEL_MAX_DATA_ROWS = 1_048_575;

const numbers = (text: string, what: string): number[] =>
  text.split(',').map((part) => {
    const n = Number(part.trim());
    if (!Number.isInteger(n) || n < 100 || n > EXCEL_MAX_DATA_ROWS)
      throw new Error(`${what}: "${part}" is not a whole number from 100 to ${EXCEL_MAX_DATA_ROWS}`);
    return n;
  });

export function parseScaleOptions(argv: string[]): ScaleOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      sizes: { type: 'string', default: `100000,300000,${EXCEL_MAX_DATA_ROWS}` },
      kinds: { type: 'string', default: 'xlsx,csv' },
      writes: { type: 'string', default: '15' },
      formulas: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const kinds = values.kinds.split(',').map((k) => k.trim());
  for (const kind of kinds)
    if (kind !== 'xlsx' && kind !== 'csv') throw new Error(`--kinds: unknown kind "${kind}"`);
  const writes = Number(values.writes);
  if (!Number.isInteger(writes) || writes < 1 || writes > 1000)
    throw new Error('--writes: a whole number from 1 to 1000');
  return {
    sizes: numbers(values.sizes, '--sizes'),
    kinds: kinds as Kind[],
    writes,
    formulas: values.formulas,
  };
}

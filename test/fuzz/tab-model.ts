/**
 * What the `Orders` tab must hold, kept beside the service: every write the service acknowledged applied to a
 * model by the contract's rules (append after the last row, update the named fields, delete moves the rows below
 * up, a batch's row numbers are the tab's before it, trailing empty rows are not rows), then held against the
 * tab as the API lists it. A write the model cannot predict (a formula, `input=user_entered`) makes it take the
 * tab as listed.
 *
 * A cell keeps its number format whatever is written to it, and new cells take their neighbours' formats, so in a
 * column where any cell has read as a date (a date typed with `input=user_entered`, say) a number written later
 * may show as a date: the model remembers those columns.
 */
import {
  type Cell,
  type DateKind,
  type Expected,
  expectedCell,
  MustRefuse,
  matches,
  show,
} from './expected-cells.ts';
import type { Credential } from './request-plan.ts';
import { DATE_COLUMN, ORDER_COLUMNS } from './workbook.ts';

interface Row {
  cells: Record<string, Expected>;
}
type Values = Record<string, unknown>;

export type Write =
  | { op: 'append'; rows: Values[] }
  | { op: 'update'; row: number; values: Values }
  | { op: 'delete'; row: number }
  | { op: 'batch'; mutations: { op?: unknown; row?: unknown; values?: unknown }[] };

const isValues = (v: unknown): v is Values => typeof v === 'object' && v !== null && !Array.isArray(v);
const empty = (row: Row) => ORDER_COLUMNS.every((c) => 'is' in row.cells[c]! && row.cells[c]!.is === null);
const DATE_OR_TIME = /^(\d{4}-\d{2}-\d{2}|\d{2}:\d{2}:\d{2})/;
const looksLikeDate = (v: Cell) => typeof v === 'string' && DATE_OR_TIME.test(v);
const blankRow = (): Row => ({ cells: Object.fromEntries(ORDER_COLUMNS.map((c) => [c, { is: null }])) });

/** Thrown when the model cannot say what a write leaves; the tab as listed is taken instead. */
export class Unpredictable extends Error {}

export class TabModel {
  rows: Row[] = [];
  /** Columns where a cell has read as a date or a time: any of their cells may hold a date format. */
  readonly #dateColumns = new Set<string>();

  /** Takes the tab as the service lists it. */
  reset(listed: Record<string, Cell>[]): void {
    this.rows = listed.map((r) => {
      for (const c of ORDER_COLUMNS) this.#see(c, r[c] ?? null);
      return { cells: Object.fromEntries(ORDER_COLUMNS.map((c) => [c, { is: r[c] ?? null }])) };
    });
  }

  #see(column: string, value: Cell): void {
    if (looksLikeDate(value)) this.#dateColumns.add(column);
  }

  #dateKind(column: string, isNewRow: boolean): DateKind {
    if (column === DATE_COLUMN) return isNewRow ? 'maybe' : 'date';
    return this.#dateColumns.has(column) ? 'maybe' : 'no';
  }

  #changed(row: Row, values: unknown, credential: Credential, isNewRow: boolean): Row {
    if (!isValues(values)) throw new MustRefuse('a row that is not an object');
    const next: Row = { cells: { ...row.cells } };
    for (const [field, value] of Object.entries(values)) {
      if (!(ORDER_COLUMNS as readonly string[]).includes(field))
        throw new MustRefuse(`unknown field ${field}`);
      const expected = expectedCell(field, value, credential, this.#dateKind(field, isNewRow));
      if ('anything' in expected) throw new Unpredictable(`${field} = ${JSON.stringify(value)}`);
      next.cells[field] = expected;
    }
    return next;
  }

  #appended(values: unknown, credential: Credential): Row {
    return this.#changed(blankRow(), values, credential, true);
  }

  #trim(): void {
    while (this.rows.length > 0 && empty(this.rows[this.rows.length - 1]!)) this.rows.pop();
  }

  #rowIndex(row: unknown): number {
    if (typeof row !== 'number' || !Number.isInteger(row) || row < 1 || row > this.rows.length)
      throw new MustRefuse(`row ${row} of ${this.rows.length}`);
    return row - 1;
  }

  /** Applies an acknowledged write; MustRefuse when the contract says it should not have been acknowledged. */
  apply(write: Write, credential: Credential): void {
    if (write.op === 'append') {
      const added = write.rows.map((values) => this.#appended(values, credential));
      if (added.some(empty)) throw new MustRefuse('an appended row with no value');
      this.rows.push(...added);
    } else if (write.op === 'update') {
      const at = this.#rowIndex(write.row);
      this.rows[at] = this.#changed(this.rows[at]!, write.values, credential, false);
    } else if (write.op === 'delete') {
      this.rows.splice(this.#rowIndex(write.row), 1);
    } else {
      this.#batch(write.mutations, credential);
    }
    this.#trim();
  }

  #batch(mutations: { op?: unknown; row?: unknown; values?: unknown }[], credential: Credential): void {
    const before = this.rows.slice();
    const touched = new Set<number>();
    const deleted = new Set<number>();
    const appended: Row[] = [];
    for (const m of mutations) {
      if (m.op === 'append') {
        appended.push(this.#appended(m.values, credential));
        continue;
      }
      const at = this.#rowIndex(m.row);
      if (touched.has(at)) throw new Unpredictable(`row ${at + 1} named twice in one batch`);
      touched.add(at);
      if (m.op === 'delete') deleted.add(at);
      else if (m.op === 'update') before[at] = this.#changed(before[at]!, m.values, credential, false);
      else throw new MustRefuse(`mutation op ${JSON.stringify(m.op)}`);
    }
    if (appended.some(empty)) throw new MustRefuse('an appended row with no value');
    this.rows = [...before.filter((_r, i) => !deleted.has(i)), ...appended];
  }

  /** Where the listed tab differs from the model (at most a few), pinning open readings to what is shown. */
  differences(listed: Record<string, Cell>[]): string[] {
    const out: string[] = [];
    if (listed.length !== this.rows.length)
      out.push(`${listed.length} rows listed, ${this.rows.length} expected`);
    const n = Math.min(listed.length, this.rows.length);
    for (let i = 0; i < n && out.length < 5; i++) {
      for (const column of ORDER_COLUMNS) {
        const expected = this.rows[i]!.cells[column]!;
        const actual = listed[i]![column] ?? null;
        if (!matches(expected, actual))
          out.push(`row ${i + 1} ${column}: ${JSON.stringify(actual)}, expected ${show(expected)}`);
        else this.rows[i]!.cells[column] = { is: actual };
        this.#see(column, actual);
      }
    }
    return out;
  }
}

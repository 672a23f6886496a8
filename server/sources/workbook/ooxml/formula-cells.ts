/**
 * The formula cells of one sheet as scanned: where each is, its own text (a shared formula's dependents get
 * the master's text moved to their place, as Excel shows them), its style, and whether the file holds a
 * cached result for it. What `?values=formula` shows and what the evaluator computes come from here.
 */
import { translateFormula } from '../formulas/formula-text.ts';
import type { ScannedCell } from './scanned-cell.ts';

export class FormulaCells {
  rows: number[] = [];
  columns: number[] = [];
  texts: string[] = [];
  styles: number[] = [];
  /** False where the file has no result for the formula (openpyxl, pandas and most generators). */
  cached: boolean[] = [];
  /** Where the formulas are array formulas (`t="array"`), by index. */
  arrays = new Set<number>();
  /** Shared formulas' masters by `si`: their text and cell. */
  #masters = new Map<string, { text: string; row: number; column: number }>();
  /** Index of the formula at (row, column), built on first use. */
  #index: Map<number, number> | null = null;

  get length(): number {
    return this.rows.length;
  }

  /** Records a scanned cell that has an `<f>` (data tables' `t="dataTable"` are Excel's what-if tool: skipped). */
  add(cell: ScannedCell): void {
    if (cell.formula === undefined || cell.formulaType === 'dataTable') return;
    let text = cell.formula;
    if (cell.formulaType === 'shared' && cell.sharedIndex !== undefined) {
      if (text !== '') {
        this.#masters.set(cell.sharedIndex, { text, row: cell.row, column: cell.column });
      } else {
        const master = this.#masters.get(cell.sharedIndex);
        if (!master) return;
        text = translateFormula(master.text, cell.row - master.row, cell.column - master.column);
      }
    }
    if (text === '') return;
    this.rows.push(cell.row);
    this.columns.push(cell.column);
    this.texts.push(text);
    this.styles.push(cell.style);
    this.cached.push(hasCachedValue(cell));
    if (cell.formulaType === 'array') this.arrays.add(this.rows.length - 1);
    this.#index = null;
  }

  /** Index of the formula at (row, column), or -1. */
  find(row: number, column: number): number {
    if (!this.#index) {
      this.#index = new Map();
      for (let i = 0; i < this.rows.length; i++)
        this.#index.set(this.rows[i]! * 16_384 + this.columns[i]!, i);
    }
    return this.#index.get(row * 16_384 + column) ?? -1;
  }

  /** Whether any formula lacks a cached result. */
  anyUncached(): boolean {
    return this.cached.includes(false);
  }

  reset(): void {
    this.rows = [];
    this.columns = [];
    this.texts = [];
    this.styles = [];
    this.cached = [];
    this.arrays = new Set();
    this.#masters = new Map();
    this.#index = null;
  }
}

/** `<v>` present; an empty `<v></v>` counts only for a text result (`t="str"`), as openpyxl writes it empty. */
function hasCachedValue(cell: ScannedCell): boolean {
  if (cell.value === undefined) return false;
  return cell.value !== '' || cell.type === 'str';
}

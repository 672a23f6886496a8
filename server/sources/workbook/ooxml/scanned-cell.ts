/**
 * What the worksheet scanners report: one cell as the file holds it, and where the cells go. Both scanners
 * (sheet-scan.ts, the fast one, and sheet-scan-saxes.ts, its fallback) speak these shapes; the fast one also
 * hands plain numbers and shared string indexes to a sink that takes them (`FastCellSink`).
 */
/** One cell as the file holds it. The scanner reuses one object: copy what you keep. */
export interface ScannedCell {
  /** 1-based row and column. */
  row: number;
  column: number;
  /** The `s` attribute (0 when absent). */
  style: number;
  /** The `t` attribute (undefined = a number). */
  type: string | undefined;
  /** `<v>` text, or the inline string's text; undefined when the cell has neither. Entities decoded. */
  value: string | undefined;
  /** `<f>` text (undefined when there is no `<f>`, '' for a shared formula's dependent). */
  formula: string | undefined;
  /** `<f t="shared" si="..">` and `ref`, for formulas shared by a range; `t="array"` too. */
  formulaType: string | undefined;
  sharedIndex: string | undefined;
  formulaRef: string | undefined;
}

export interface SheetScan {
  /** The merged ranges (`A1:B2`) listed after the cells. */
  merges: string[];
}

/** Where the cells go. `reset` forgets every cell reported so far (the scan starts over with saxes). */
export interface CellSink {
  cell(cell: ScannedCell): void;
  reset(): void;
}

/**
 * A sink that takes the commonest cells without their text: a plain number (no formula, no type or `t="n"`),
 * a shared string's index (`t="s"`) and a boolean (`t="b"`), none with a formula. Every other cell comes
 * through `cell`.
 */
export interface FastCellSink extends CellSink {
  numberCell(row: number, column: number, style: number, value: number): void;
  sharedStringCell(row: number, column: number, index: number): void;
  booleanCell(row: number, column: number, value: boolean): void;
}

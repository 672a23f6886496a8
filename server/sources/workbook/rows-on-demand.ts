/**
 * A tab's rows made from the parse thread's flat columns: each when asked for, and all of them behind, a slice
 * at a time. A million rows take about a second to make on the service's thread (most of it fresh memory), so a
 * tab just read answers its first plain page from the columns and is complete a second later. The columns'
 * layout is the engine's (encoded-tab.ts, csv-tab.ts); this is only the order of the making.
 */
import { pacer } from '../../lib/pacer.ts';
import type { CellValue, RowsOnDemand } from '../source.ts';

/** How one engine makes a row from its columns, and gives the columns back once every row is made. */
export interface RowMaker {
  rows: number;
  make(row: number): CellValue[];
  release(): void;
}

/** Rows made per step of the paced pass: a few milliseconds. */
const STEP_ROWS = 2_000;

export class DecodingRows implements RowsOnDemand {
  readonly rowCount: number;
  readonly owner: CellValue[][];
  readonly complete: Promise<void>;
  /** The columns' row maker, until every row is made. */
  #maker: RowMaker | null;
  /** Every row below this one is made. */
  #next = 0;
  /** Whether rows are still made behind (until `stopBehind`). */
  #behind = true;

  constructor(maker: RowMaker) {
    this.rowCount = maker.rows;
    this.owner = new Array(maker.rows);
    this.#maker = maker;
    this.complete = this.#makeAllPaced();
  }

  /** Whether every row is made. */
  get made(): boolean {
    return this.#maker === null;
  }

  row(index: number): CellValue[] {
    const maker = this.#maker;
    if (maker === null) return this.owner[index]!;
    let row = this.owner[index];
    if (row === undefined) {
      row = maker.make(index);
      this.owner[index] = row;
    }
    return row;
  }

  /**
   * The paced pass ends at its next step: a million rows made over a second, and the collections they cost, are
   * of no use to a read that answers once (a connect, which exits or drops the read).
   */
  stopBehind(): void {
    this.#behind = false;
  }

  /** Every row, made now where the paced pass has not reached them. */
  all(): CellValue[][] {
    if (this.#maker !== null) this.#makeUpTo(this.rowCount);
    return this.owner;
  }

  async #makeAllPaced(): Promise<void> {
    const pace = pacer();
    while (this.#maker !== null && this.#behind) {
      this.#makeUpTo(Math.min(this.rowCount, this.#next + STEP_ROWS));
      await pace();
    }
  }

  #makeUpTo(end: number): void {
    const maker = this.#maker!;
    const rows = this.owner;
    for (let r = this.#next; r < end; r++) rows[r] ??= maker.make(r);
    this.#next = end;
    if (end < this.rowCount) return;
    this.#maker = null;
    maker.release(); // every cell is in the rows now
  }
}

/**
 * A tab's `typed` and `onDemand` properties (enumerable `typed`, as a plain snapshot's), from its rows or the
 * rows it is making, and `rows()`, which reads them whole.
 */
export function rowProperties(typed: CellValue[][] | DecodingRows): {
  rows: () => CellValue[][];
  properties: PropertyDescriptorMap;
} {
  if (!(typed instanceof DecodingRows)) {
    return { rows: () => typed, properties: { typed: { value: typed, enumerable: true } } };
  }
  const rows = () => typed.all();
  return {
    rows,
    properties: {
      typed: { get: rows, enumerable: true },
      // Only while rows are still being made: once they are, `typed` is all there is to read.
      onDemand: { get: () => (typed.made ? undefined : typed) },
    },
  };
}

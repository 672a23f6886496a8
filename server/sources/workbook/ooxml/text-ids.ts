/**
 * The ids of a tab's texts while it is scanned: a text that repeats down a column is one string, looked up by its
 * text. Looking up pays only where texts repeat: in a column of distinct texts (emails, references, notes, the
 * dates of a log) every look-up misses, and a table of millions of them costs far more than the strings (3 million
 * distinct texts: about 4 s of look-ups against 1 s to make the strings, on this project's 2-core VM). So each
 * column is watched: one whose texts rarely repeat gives each text a new id, and looks up only one text in
 * SAMPLE_EVERY from then on, to turn look-ups back on when its texts start repeating.
 *
 * Only memory rides on the choice, never a value: a text given two ids is two equal strings.
 */

/** Look-ups a column is judged on, each time. */
const WINDOW = 4_096;
/**
 * A column whose texts repeat in less than this share of its look-ups stops looking up: a miss in a large table
 * costs more than the string a hit saves.
 */
const WORTH_IT = 0.25;
/** While a column does not look up, one text in this many is still looked up, to see whether that changed. */
const SAMPLE_EVERY = 64;

/** Per column: whether it looks up, and its look-ups and hits since it was last judged. */
interface ColumnWatch {
  lookingUp: boolean;
  seen: number;
  hits: number;
  /** Texts since the last sampled look-up, while not looking up. */
  skipped: number;
}

export class TextIds {
  /** Every text by its id. */
  strings: string[] = [];
  #ids = new Map<string, number>();
  #columns: ColumnWatch[] = [];

  /**
   * Whether a text of `column` should be looked up now. Each true is to be followed by `found` (a hit) or by
   * `idOf`; a false by `add`.
   */
  lookUp(column: number): boolean {
    const watch = this.#watch(column);
    if (watch.lookingUp) return true;
    if (++watch.skipped < SAMPLE_EVERY) return false;
    watch.skipped = 0;
    return true;
  }

  /** The id of `text` in `column`, looked up (after `lookUp` said so): the one it has, or a new one. */
  idOf(text: string, column: number): number {
    let id = this.#ids.get(text);
    const hit = id !== undefined;
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(text);
      this.#ids.set(text, id);
    }
    this.#judge(column, hit);
    return id!;
  }

  /** A look-up of `column` found its text by other means (a cache of the caller's): counted as a hit. */
  found(column: number): void {
    this.#judge(column, true);
  }

  /** A new id for `text`, not looked up. */
  add(text: string): number {
    this.strings.push(text);
    return this.strings.length - 1;
  }

  reset(): void {
    this.strings = [];
    this.#ids = new Map();
    this.#columns = [];
  }

  #watch(column: number): ColumnWatch {
    let watch = this.#columns[column];
    if (!watch) {
      // Filled up to `column`, so the array stays packed however the columns come.
      while (this.#columns.length < column) this.#columns.push(newWatch());
      watch = newWatch();
      this.#columns[column] = watch;
    }
    return watch;
  }

  #judge(column: number, hit: boolean): void {
    const watch = this.#watch(column);
    watch.seen++;
    if (hit) watch.hits++;
    // Judged on a full window: while looking up, on its look-ups; while not, on its sampled ones.
    if (watch.seen < WINDOW) return;
    watch.lookingUp = watch.hits >= watch.seen * WORTH_IT;
    watch.seen = 0;
    watch.hits = 0;
  }
}

const newWatch = (): ColumnWatch => ({ lookingUp: true, seen: 0, hits: 0, skipped: 0 });

/**
 * A workbook's defined names, as its formulas use them. A name for a range or a cell (`Sales = Data!$B$2:$B$99`)
 * is answered as that reference when the parser meets it (evaluator.ts `#variable`). Every other name is written
 * out as its definition before the parse (formula-text.ts `spellNames`), since the parser cannot read it as a
 * name: a constant (`TaxRate = 0.2`) or a formula (`Sales = OFFSET(Data!$B$1,0,0,COUNT(Data!$B:$B),1)`), which
 * it answered as #NAME?, and a name of one to three letters (`Qty`, `Tax`), which it read as a column's letters.
 */
import { spellNames } from './formula-text.ts';
import { refFromText } from './reference-text.ts';

export interface DefinedName {
  name: string;
  /** The definition as the workbook holds it (`Sheet1!$B$2`, `'My Tab'!$A$1:$A$9`, `0.2`). */
  formula: string;
  /** The tab the name is local to (its name), or undefined for a workbook-wide name. */
  sheet?: string;
}

/** How deep a name's definition may name others (`Gross = Net*(1+TaxRate)`); past it they stay as written. */
const MAX_NAME_DEPTH = 16;

interface Scopes {
  global?: DefinedName;
  local: Map<string, DefinedName>;
}

export class DefinedNames {
  /** By lower-cased name: the workbook-wide one and those local to a tab (by its lower-cased name). */
  readonly #byName = new Map<string, Scopes>();

  constructor(names: readonly DefinedName[]) {
    for (const name of names) {
      const key = name.name.toLowerCase();
      const entry: Scopes = this.#byName.get(key) ?? { local: new Map() };
      this.#byName.set(key, entry);
      if (name.sheet === undefined) entry.global ??= name;
      else if (!entry.local.has(name.sheet.toLowerCase())) entry.local.set(name.sheet.toLowerCase(), name);
    }
  }

  /** The name as a formula on `sheet` sees it: local to that tab first, then workbook-wide. */
  find(name: string, sheet: string): DefinedName | undefined {
    const entry = this.#byName.get(name.toLowerCase());
    return entry && (entry.local.get(sheet.toLowerCase()) ?? entry.global);
  }

  /** `formula` (on `sheet`) with each name the parser cannot take as a name written out as its definition. */
  spelled(formula: string, sheet: string): string {
    return this.#byName.size === 0 ? formula : this.#spell(formula, sheet, 0);
  }

  #spell(formula: string, sheet: string, depth: number): string {
    return spellNames(formula, (word) => {
      const defined = this.find(word, sheet);
      if (!defined || depth >= MAX_NAME_DEPTH) return undefined;
      const definition = defined.formula.trim().replace(/^=/, '');
      // A plain reference (a range or a cell), which the parser takes as a name, unless it reads like a column.
      if (word.length > 3 && refFromText(definition, '') !== undefined) return undefined;
      return `(${this.#spell(definition, sheet, depth + 1)})`;
    });
  }
}

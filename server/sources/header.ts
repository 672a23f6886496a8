/**
 * Header resolution shared by the .xlsx and .csv readers, so both kinds of file name their columns the
 * same way: names are the trimmed display text, a blank cell is named by its column letter, and repeated
 * names get `_2`, `_3`... suffixes (skipping suffixes that already exist as real headers).
 */

/** 1-based column number -> spreadsheet column letters (1 -> A, 27 -> AA). */
export function columnLetter(column: number): string {
  let n = column;
  let letters = '';
  while (n > 0) {
    const rem = (n - 1) % 26;
    letters = String.fromCharCode(65 + rem) + letters;
    n = Math.floor((n - 1) / 26);
  }
  return letters;
}

/**
 * Turn the raw header cell texts of one row (index 0 = column A) into unique API field names.
 * The first occurrence of a name keeps it; later ones take the next suffix that is neither a real header
 * elsewhere in the row nor already handed out, so `[Name, Name, Name_2]` -> `[Name, Name_3, Name_2]`.
 */
export function resolveHeader(rawNames: readonly string[]): string[] {
  const base = rawNames.map((raw, i) => {
    const name = raw.trim();
    return name === '' ? columnLetter(i + 1) : name;
  });
  const real = new Set(base);
  const used = new Set<string>();
  // Per name, the suffix to try next. The suffixes a name is given rise, and a suffix is never another name's
  // (`X_j` = `Y_k` only when X = Y and j = k), so the next free one is never below it: linear in the row, where
  // starting each duplicate at `_2` took 18 s for a header of 16,384 equal names.
  const next = new Map<string, number>();
  return base.map((name) => {
    if (!used.has(name)) {
      used.add(name);
      return name;
    }
    let k = next.get(name) ?? 2;
    while (real.has(`${name}_${k}`) || used.has(`${name}_${k}`)) k++;
    next.set(name, k + 1);
    const unique = `${name}_${k}`;
    used.add(unique);
    return unique;
  });
}

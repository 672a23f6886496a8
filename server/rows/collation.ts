/**
 * How `search` and `sort` compare text: one collation, ignoring case and accents (`zoe` = `Zoë` = `ZOÉ`,
 * `strasse` = `Straße`, `lodz` = `Łódź`), with digits in text compared by value when sorting (`item2` <
 * `item10`). `search_exact` is the one comparison that does not fold: the whole value, as it is.
 *
 * Folding is what both use for "the same text": lower case, compatibility decomposition, combining marks
 * removed, and the few Latin letters that carry their accent inside (ß, æ, ø, ł, ...) spelled out. Text that
 * is ASCII already costs one toLowerCase.
 */

/** Order between folded texts (case and accents already gone; digits by value). */
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

const NON_ASCII = /[^\u0000-\u007f]/;
const MARKS = /\p{M}+/gu;
const WHOLE_LETTERS = /[ßæœøđłħıŧþð]/g;
const SPELLED: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ł: 'l',
  ħ: 'h',
  ı: 'i',
  ŧ: 't',
  þ: 'th',
  ð: 'd',
};

/** The text as search and sort compare it. */
export function foldText(text: string): string {
  const lower = text.toLowerCase();
  if (!NON_ASCII.test(lower)) return lower;
  return lower
    .normalize('NFKD')
    .replace(MARKS, '')
    .replace(WHOLE_LETTERS, (ch) => SPELLED[ch] ?? ch);
}

/** Sort order of two folded texts. */
export function compareFolded(a: string, b: string): number {
  return collator.compare(a, b);
}

/**
 * Parses the list parameters (match.ts then matches rows against the parsed search): the tiny escape grammar
 * shared by `search`, `search_exact`, `sort` and `fields`:
 * items are separated by unescaped `,`; in search items the field ends at the first unescaped `:`.
 * `\,` `\:` `\\` (and `\-`, so a sort key can name a field that starts with '-') stand for the character
 * itself. A backslash before any other character is kept literally, so header names with a stray
 * backslash still work unescaped.
 */
import { AppError } from '../errors.ts';
import type { Filter } from './query.ts';

interface Item {
  /** Text before the first unescaped ':' (or the whole item when colons are not split). */
  key: string;
  /** Text after the first unescaped ':'; null when there was none (or colons are not split). */
  value: string | null;
  /** The item starts with an unescaped '-' (sort: descending). */
  dash: boolean;
}

const ESCAPABLE = new Set([',', ':', '\\', '-']);

function scan(raw: string, splitColon: boolean): Item[] {
  const items: Item[] = [];
  let key = '';
  let value: string | null = null;
  let dash = false;
  let start = true; // at the first character of an item
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '\\' && i + 1 < raw.length && ESCAPABLE.has(raw[i + 1]!)) {
      const next = raw[++i]!;
      if (value === null) key += next;
      else value += next;
    } else if (ch === ',') {
      items.push({ key, value, dash });
      key = '';
      value = null;
      dash = false;
      start = true;
      continue;
    } else if (ch === ':' && splitColon && value === null) {
      value = '';
    } else if (value === null) {
      if (start && ch === '-') dash = true;
      key += ch;
    } else {
      value += ch;
    }
    start = false;
  }
  items.push({ key, value, dash });
  return items;
}

/** Split a comma list honouring escapes (for `fields`). */
export function splitEscaped(raw: string): string[] {
  return scan(raw, false).map((it) => it.key);
}

/** Split a `sort` list: a leading unescaped '-' means descending and is not part of the name. */
export function splitSortKeys(raw: string): { field: string; descending: boolean }[] {
  return scan(raw, false).map((it) => ({ field: it.dash ? it.key.slice(1) : it.key, descending: it.dash }));
}

/** Parse `search` / `search_exact`. An empty parameter means no filter; an item without ':' is a 400. */
export function parseSearch(raw: string, parameter: string, exact: boolean): Filter[] {
  if (raw === '') return [];
  return scan(raw, true).map((it) => {
    if (it.value === null) {
      throw new AppError(
        'invalid_parameter',
        `Parameter "${parameter}" must be field:value pairs separated by commas; "${it.key}" has no ':'.`,
        { parameter },
      );
    }
    return { field: it.key, value: it.value, exact };
  });
}

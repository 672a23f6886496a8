/**
 * The text primitives of the worksheet scanner (sheet-scan.ts): character codes, XML entities, digit runs and
 * cell types read in place. `Unsupported` is what the scanner throws for anything outside the grammar it
 * reads, sending the part to the full XML parser.
 */

export class Unsupported extends Error {}

export const SLASH = 47;
export const COLON = 58;
export const BANG = 33;
export const QUESTION = 63;
export const DOLLAR = 36;
export const QUOTE = 34;
export const APOS = 39;
export const EQUALS = 61;

export function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

export function isNameEnd(code: number): boolean {
  return code === EQUALS || isSpace(code);
}

/**
 * From just after an attribute's name (spaces, `=`, spaces, an opening quote): where its value starts. Its end
 * is the next quote of the same kind (attributeValueEnd).
 */
export function attributeValueStart(xml: string, from: number, end: number): number {
  let p = from;
  while (p < end && isSpace(xml.charCodeAt(p))) p++;
  if (xml.charCodeAt(p) !== EQUALS) throw new Unsupported();
  p++;
  while (p < end && isSpace(xml.charCodeAt(p))) p++;
  const quote = xml.charCodeAt(p);
  if (quote !== QUOTE && quote !== APOS) throw new Unsupported();
  return p + 1;
}

/** The closing quote of the value that starts at `valueStart`, before the tag's `end`. */
export function attributeValueEnd(xml: string, valueStart: number, end: number): number {
  const valueEnd = xml.indexOf(xml.charCodeAt(valueStart - 1) === QUOTE ? '"' : "'", valueStart);
  if (valueEnd < 0 || valueEnd >= end) throw new Unsupported();
  return valueEnd;
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML's five named entities and character references; anything else is not for this scanner. */
export function decodeEntities(text: string): string {
  return text.replace(/&([^;&]*);?/g, (whole, body: string) => {
    if (!whole.endsWith(';')) throw new Unsupported();
    const named = NAMED[body];
    if (named !== undefined) return named;
    const code = body.startsWith('#x')
      ? Number.parseInt(body.slice(2), 16)
      : body.startsWith('#')
        ? Number.parseInt(body.slice(1), 10)
        : Number.NaN;
    if (!Number.isInteger(code) || code < 0 || code > 0x10ffff) throw new Unsupported();
    return String.fromCodePoint(code);
  });
}

/** A run of ASCII digits as a number; -1 when there is anything else, 0 when there is nothing. */
export function digits(text: string, from: number, to: number): number {
  let n = 0;
  for (let p = from; p < to; p++) {
    const d = text.charCodeAt(p) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

const CELL_TYPES = ['s', 'n', 'b', 'e', 'str', 'inlineStr', 'd'];

/** A cell's `t`, as one of the shared constant strings when it is a known type. */
export function cellType(text: string, from: number, to: number): string {
  for (const type of CELL_TYPES) if (to - from === type.length && text.startsWith(type, from)) return type;
  const raw = text.slice(from, to);
  return raw.includes('&') ? decodeEntities(raw) : raw;
}

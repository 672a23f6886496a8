/**
 * ROUND, ROUNDUP, ROUNDDOWN, TRUNC, CEILING.MATH, FLOOR.MATH, FIXED and DOLLAR as Excel computes them: on the number as it shows it (15
 * significant digits), shifting its decimal digits rather than multiplying by a power of ten. fast-formula-parser's
 * multiplied: ROUND(0.285,2) was 0.28 (0.285 * 100 is 28.499999999999996), where Excel gives 0.29. Its FIXED
 * and DOLLAR wrote through a number format made of the decimals, so no decimals (`DOLLAR(-0.5,0)`) gave "($.)"
 * and negative decimals (`FIXED(-1234.567,-1)`) no text at all.
 */
import { isFormulaError, numberOf } from './number-argument.ts';
import { type FormulaErrorValue, formulaLibrary } from './parser.ts';

interface Param {
  value: unknown;
  omitted?: boolean;
}

type Way = 'nearest' | 'up' | 'down';

/** Excel's most decimals for FIXED and DOLLAR. */
const MAX_DECIMALS = 127;

/** `n` times 10^`places`, by moving its decimal point in its text (exact for what the text holds). */
function shifted(n: number, places: number): number {
  const [mantissa, exponent = '0'] = String(n).split('e');
  return Number(`${mantissa}e${Number(exponent) + places}`);
}

/**
 * The rounding by arithmetic, when it cannot differ from the rounding of the number as shown: the scaled number is
 * not within a hair of where the rounding turns (a half, or a whole for up and down). Most calls end here, without
 * writing the number as text.
 */
function quickRound(n: number, places: number, way: Way): number | undefined {
  if (places < -15 || places > 15) return undefined;
  const size = Math.abs(n);
  const power = 10 ** Math.abs(places);
  const scaled = places >= 0 ? size * power : size / power;
  if (!(scaled < 2 ** 52)) return undefined;
  const fraction = scaled - Math.floor(scaled);
  const edge = way === 'nearest' ? Math.abs(fraction - 0.5) < 1e-6 : fraction < 1e-6 || fraction > 1 - 1e-6;
  if (edge) return undefined;
  const whole =
    way === 'nearest' ? Math.round(scaled) : way === 'up' ? Math.ceil(scaled) : Math.floor(scaled);
  const rounded = places >= 0 ? whole / power : whole * power;
  return n < 0 ? -rounded : rounded;
}

/** `n` rounded to `digits` decimals (tens, hundreds... when negative), away from zero at a half. */
export function roundTo(n: number, digits: number, way: Way): number {
  const places = Math.trunc(digits);
  const quick = quickRound(n, places, way);
  if (quick !== undefined) return quick;
  const shown = Number(n.toPrecision(15));
  const size = Math.abs(shown);
  const scaled = shifted(size, places);
  if (!Number.isFinite(scaled)) return shown; // decimals past what the number holds: nothing to round
  const whole =
    way === 'nearest' ? Math.round(scaled) : way === 'up' ? Math.ceil(scaled) : Math.floor(scaled);
  const rounded = shifted(whole, -places);
  return shown < 0 ? -rounded : rounded;
}

function rounding(way: Way) {
  return (number: Param, digits?: Param): unknown => {
    const n = numberOf(number.value);
    const d = digits === undefined || digits.omitted ? 0 : numberOf(digits.value);
    if (isFormulaError(n)) return n;
    if (isFormulaError(d)) return d;
    return roundTo(n, d, way);
  };
}

/** `n` rounded to `decimals` and written with them, its whole part in groups of three when `grouped`. */
function written(n: number, decimals: number, grouped: boolean): string {
  const rounded = roundTo(n, decimals, 'nearest');
  const size = Math.abs(rounded);
  // toFixed and String write every digit below 10^21, past what a spreadsheet keeps.
  const text = decimals > 0 ? size.toFixed(Math.min(decimals, 100)) : String(size);
  const [whole = '', fraction] = text.split('.');
  const groups = grouped ? inThrees(whole) : whole;
  return fraction === undefined ? groups : `${groups}.${fraction}`;
}

/** Digits in groups of three from the right: "1234567" is "1,234,567". */
function inThrees(digits: string): string {
  const first = digits.length % 3 || 3;
  const groups = [digits.slice(0, first)];
  for (let at = first; at < digits.length; at += 3) groups.push(digits.slice(at, at + 3));
  return groups.join(',');
}

/** The number and decimals of FIXED or DOLLAR, or the error to answer. */
function formatArguments(number: Param, decimals: Param | undefined): [number, number] | FormulaErrorValue {
  const n = numberOf(number.value);
  if (isFormulaError(n)) return n;
  const d = decimals === undefined || decimals.omitted ? 2 : numberOf(decimals.value);
  if (isFormulaError(d)) return d;
  return Math.trunc(d) > MAX_DECIMALS ? formulaLibrary().FormulaError.VALUE : [n, Math.trunc(d)];
}

/**
 * CEILING.MATH or FLOOR.MATH(number, [significance], [mode]): the multiple of |significance| (1 when left out)
 * above (`up`) or below it; a negative number goes toward zero unless `mode` is not 0. The parser's CEILING.MATH
 * took -2.5 away from zero (-3) where Excel gives -2.
 */
function toMultiple(up: boolean) {
  return (number: Param, significance?: Param, mode?: Param): unknown => {
    const given = (p: Param | undefined, otherwise: number) =>
      p === undefined || p.omitted ? otherwise : numberOf(p.value);
    const n = numberOf(number.value);
    const step = given(significance, 1);
    const away = given(mode, 0);
    for (const v of [n, step, away]) if (isFormulaError(v)) return v;
    const size = Math.abs(step as number);
    if (size === 0) return 0;
    const times = Number((Math.abs(n as number) / size).toPrecision(15));
    // For a negative number, "above" is toward zero: the size rounds down, unless away from zero is asked.
    const larger = (n as number) >= 0 ? up : up === (away !== 0);
    const multiple = (larger ? Math.ceil(times) : Math.floor(times)) * size;
    return Number(((n as number) < 0 ? -multiple : multiple).toPrecision(15));
  };
}

export const ROUNDING_FUNCTIONS: Record<string, (...params: Param[]) => unknown> = {
  ROUND: rounding('nearest'),
  ROUNDUP: rounding('up'),
  ROUNDDOWN: rounding('down'),
  /** TRUNC(number, [digits]): toward zero, to `digits` decimals (the parser's dropped its digits: 3.14159 -> 3). */
  TRUNC: rounding('down'),
  'CEILING.MATH': toMultiple(true),
  'FLOOR.MATH': toMultiple(false),
  /** FIXED(number, [decimals], [no_commas]): "-1,234.57"; the sign of what shows, "-" before it. */
  FIXED: (number, decimals, noCommas) => {
    const args = formatArguments(number, decimals);
    if (isFormulaError(args)) return args;
    const [n, d] = args;
    const text = written(n, d, !(noCommas && !noCommas.omitted && noCommas.value));
    return roundTo(n, d, 'nearest') < 0 ? `-${text}` : text;
  },
  /** DOLLAR(number, [decimals]): en-US currency, "$1,234.57", a negative in parentheses "($1,234.57)". */
  DOLLAR: (number, decimals) => {
    const args = formatArguments(number, decimals);
    if (isFormulaError(args)) return args;
    const [n, d] = args;
    const text = `$${written(n, d, true)}`;
    return roundTo(n, d, 'nearest') < 0 ? `(${text})` : text;
  },
};

/**
 * Functions whose work grows with one of their numbers, held to a bound past which they answer #NUM! at once.
 * The libraries' binomial, Poisson and negative binomial counts add up one term per unit of their count, DB and
 * DDB step through every period, the gamma and chi-squared functions sum a series as long as their shape, and the Bessel
 * functions recur once per order: `CRITBINOM(A2,0.5,0.999)` with A2 written as 10^9 held the service's thread for
 * 124 s, `POISSON(A2,A2,TRUE)` 23 s, `DB(1000,10,A2,A2)` 21 s. Each bound keeps a call within a few
 * milliseconds; the binomial and Poisson counts already answered #VALUE! well below theirs (the libraries' terms
 * overflow), and no depreciation schedule or Bessel order of real use comes near them.
 */
import { argumentValue, type CallReader } from './call-reader.ts';
import { isFormulaError, numberOf } from './number-argument.ts';
import { type FormulaErrorValue, formulaLibrary } from './parser.ts';

/** Function -> the argument (0-based) whose size drives its work, and the largest it may be. */
const BOUNDS: Record<string, { at: number; most: number }> = {
  'BINOM.INV': { at: 0, most: 100_000 },
  'POISSON.DIST': { at: 0, most: 100_000 },
  'NEGBINOM.DIST': { at: 0, most: 100_000 },
  DB: { at: 3, most: 100_000 },
  DDB: { at: 3, most: 100_000 },
  'GAMMA.DIST': { at: 1, most: 1_000_000 },
  'GAMMA.INV': { at: 1, most: 1_000_000 },
  'CHISQ.DIST': { at: 1, most: 2_000_000 },
  'CHISQ.DIST.RT': { at: 1, most: 2_000_000 },
  'CHISQ.INV': { at: 1, most: 2_000_000 },
  'CHISQ.INV.RT': { at: 1, most: 2_000_000 },
  BESSELI: { at: 1, most: 100_000 },
  BESSELJ: { at: 1, most: 100_000 },
  BESSELK: { at: 1, most: 100_000 },
  BESSELY: { at: 1, most: 100_000 },
};

/** #NUM! when the call's driving number is past its bound; undefined (the call goes on) otherwise. */
export function pastItsBound(name: string, args: unknown[], read: CallReader): FormulaErrorValue | undefined {
  const bound = BOUNDS[name.toUpperCase()];
  if (!bound || args.length <= bound.at) return undefined;
  const n = numberOf(argumentValue(args[bound.at], read));
  // Not a number (an error, text): the function answers for it itself.
  return !isFormulaError(n) && Math.abs(n) > bound.most ? formulaLibrary().FormulaError.NUM : undefined;
}

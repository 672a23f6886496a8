/**
 * Calls that stand for another call: the older names Excel still accepts for functions it renamed (`STDEV` for
 * `STDEV.S`, `NORMDIST` for `NORM.DIST`; some of the old forms lack an argument the new one takes, which is
 * added: `NORMSDIST(z)` is `NORM.S.DIST(z,TRUE)`), and SUBTOTAL, which is the function its number names
 * (subtotal.ts). The evaluator computes the call this answers in its place. Neither library knew the old
 * statistical names: `NORMDIST(1,0,1,TRUE)` was not computed.
 */
import { argumentValue, type CallReader } from './call-reader.ts';
import { isFormulaError, numberOf } from './number-argument.ts';
import { type FormulaErrorValue, formulaLibrary } from './parser.ts';
import { subtotalCall } from './subtotal.ts';

/** Old name -> the function it is now, with the same arguments. */
const RENAMED: Record<string, string> = {
  MODE: 'MODE.SNGL',
  STDEV: 'STDEV.S',
  STDEVP: 'STDEV.P',
  VAR: 'VAR.S',
  VARP: 'VAR.P',
  RANK: 'RANK.EQ',
  PERCENTILE: 'PERCENTILE.INC',
  QUARTILE: 'QUARTILE.INC',
  PERCENTRANK: 'PERCENTRANK.INC',
  COVAR: 'COVARIANCE.P',
  NORMDIST: 'NORM.DIST',
  NORMINV: 'NORM.INV',
  NORMSINV: 'NORM.S.INV',
  LOGINV: 'LOGNORM.INV',
  BINOMDIST: 'BINOM.DIST',
  CRITBINOM: 'BINOM.INV',
  POISSON: 'POISSON.DIST',
  EXPONDIST: 'EXPON.DIST',
  WEIBULL: 'WEIBULL.DIST',
  GAMMADIST: 'GAMMA.DIST',
  GAMMAINV: 'GAMMA.INV',
  CONFIDENCE: 'CONFIDENCE.NORM',
  CHIDIST: 'CHISQ.DIST.RT',
  CHIINV: 'CHISQ.INV.RT',
  CHITEST: 'CHISQ.TEST',
  FDIST: 'F.DIST.RT',
  FINV: 'F.INV.RT',
  FTEST: 'F.TEST',
  BETAINV: 'BETA.INV',
  TINV: 'T.INV.2T',
};

/** Old name -> the function it is now and where its `cumulative` argument goes (always given as written). */
const WITH_CUMULATIVE: Record<string, { name: string; at: number; cumulative: boolean }> = {
  NORMSDIST: { name: 'NORM.S.DIST', at: 1, cumulative: true },
  LOGNORMDIST: { name: 'LOGNORM.DIST', at: 3, cumulative: true },
  HYPGEOMDIST: { name: 'HYPGEOM.DIST', at: 4, cumulative: false },
  NEGBINOMDIST: { name: 'NEGBINOM.DIST', at: 3, cumulative: false },
  BETADIST: { name: 'BETA.DIST', at: 3, cumulative: true },
};

type Rewritten = { name: string; args: unknown[] } | FormulaErrorValue | undefined;

/** The call `name(args)` stands for, the error it answers, or undefined when it is its own. */
export function rewrittenCall(name: string, args: unknown[], read: CallReader): Rewritten {
  const upper = name.toUpperCase();
  const renamed = RENAMED[upper];
  if (renamed) return { name: renamed, args };
  const added = WITH_CUMULATIVE[upper];
  if (added && args.length >= added.at) {
    return {
      name: added.name,
      args: [...args.slice(0, added.at), added.cumulative, ...args.slice(added.at)],
    };
  }
  if (upper === 'TDIST') return tDist(args, read);
  if (upper === 'SUBTOTAL') return subtotalCall(args, read);
  return undefined;
}

/** TDIST(x, degrees, tails): the right tail (1) or both tails (2) of Student's t; a negative x is #NUM!. */
function tDist(args: unknown[], read: CallReader): Rewritten {
  if (args.length !== 3) return formulaLibrary().FormulaError.VALUE;
  const x = numberOf(argumentValue(args[0], read));
  const tails = numberOf(argumentValue(args[2], read));
  if (isFormulaError(x)) return x;
  if (isFormulaError(tails)) return tails;
  const which = Math.trunc(tails);
  if (x < 0 || (which !== 1 && which !== 2)) return formulaLibrary().FormulaError.NUM;
  return { name: which === 1 ? 'T.DIST.RT' : 'T.DIST.2T', args: args.slice(0, 2) };
}

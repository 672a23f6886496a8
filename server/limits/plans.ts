import type { ApiKeyRecord, KeyPlan } from '../repositories/keys.ts';

export interface Limits {
  /** Requests allowed in any rolling one-second window. */
  perSecond: number;
  /** Requests allowed per UTC day. */
  daily: number;
}

/** The seed's plans. Enterprise has no defaults: its numbers are set per key. */
export const PLAN_LIMITS: Readonly<Record<Exclude<KeyPlan, 'enterprise'>, Limits>> = {
  free: { perSecond: 10, daily: 5_000 },
  pro: { perSecond: 100, daily: 500_000 },
};

/** Unauthenticated reads of a public-read connection are limited per client address at the Free plan. */
export const PUBLIC_READ_LIMITS: Limits = PLAN_LIMITS.free;

/** A key's limits: its plan's numbers, or for Enterprise the key's own (Pro's where one is missing). */
export function limitsOf(key: Pick<ApiKeyRecord, 'plan' | 'perSecond' | 'daily'>): Limits {
  if (key.plan === 'enterprise') {
    return {
      perSecond: key.perSecond ?? PLAN_LIMITS.pro.perSecond,
      daily: key.daily ?? PLAN_LIMITS.pro.daily,
    };
  }
  return PLAN_LIMITS[key.plan];
}

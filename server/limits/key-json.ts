/**
 * The JSON shape of an API key, one for the admin API (the dashboard) and the CLI: its effective limits, never
 * the raw per-key overrides (a Free key's `per_second` is 10, not null), and never the secret.
 */
import type { ApiKeyRecord } from '../repositories/keys.ts';
import type { Usage } from '../repositories/usage.ts';
import { limitsOf } from './plans.ts';

export function apiKeyJson(k: ApiKeyRecord) {
  const limits = limitsOf(k);
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scope: k.scope,
    plan: k.plan,
    limits: { per_second: limits.perSecond, daily: limits.daily },
    connections: k.connections,
    allow_formulas: k.allowFormulas,
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    revoked_at: k.revokedAt,
  };
}

/** The admin surface's shape of a key, in every answer that returns one: the key with today's counts. */
export async function adminKeyJson(k: ApiKeyRecord, usage: Pick<Usage, 'today'>, nowMs: number) {
  const today = await usage.today(k.id, nowMs);
  return {
    ...apiKeyJson(k),
    today: {
      requests: today.requests,
      refused_per_second: today.refusedPerSecond,
      refused_daily: today.refusedDaily,
    },
  };
}

import { utcDay } from '../lib/utc-day.ts';
import type { ApiKeyRecord } from '../repositories/keys.ts';
import type { Usage } from '../repositories/usage.ts';
import { limitsOf } from './plans.ts';

export interface UsageReport {
  key_id: string;
  plan: ApiKeyRecord['plan'];
  limits: { per_second: number; daily: number };
  today: {
    day: string;
    requests: number;
    refused_per_second: number;
    refused_daily: number;
    remaining: number;
  };
  /** Newest first; days without requests are left out. */
  days: { day: string; requests: number; refused_per_second: number; refused_daily: number }[];
}

/** A key's usage as the CLI and the admin API show it. */
export async function usageReport(
  key: ApiKeyRecord,
  usage: Usage,
  nowMs: number,
  days = 30,
): Promise<UsageReport> {
  const limits = limitsOf(key);
  const history = (await usage.history(key.id, nowMs, days)).map((d) => ({
    day: d.day,
    requests: d.requests,
    refused_per_second: d.refusedPerSecond,
    refused_daily: d.refusedDaily,
  }));
  const today = history.find((d) => d.day === utcDay(nowMs)) ?? {
    day: utcDay(nowMs),
    requests: 0,
    refused_per_second: 0,
    refused_daily: 0,
  };
  return {
    key_id: key.id,
    plan: key.plan,
    limits: { per_second: limits.perSecond, daily: limits.daily },
    today: { ...today, remaining: Math.max(0, limits.daily - today.requests) },
    days: history,
  };
}

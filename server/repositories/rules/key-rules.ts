/**
 * The pure rules of API keys (keys.ts applies them over either database): the key's form, its hash, the throttle
 * of last-used writes, and the checks of a new key and of a plan change.
 */
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../errors.ts';
import {
  type CreateApiKeyInput,
  KEY_PLANS,
  KEY_SCOPES,
  type KeyPlan,
  type KeyScope,
  type PlanChange,
} from '../keys.ts';

export const KEY_PREFIX = 'sp_';
/** How many leading characters of a key are kept in clear, to recognise it in listings. */
export const KEY_DISPLAY_PREFIX_LENGTH = 12;
/** `touch` writes last_used_at at most this often per key. */
export const TOUCH_INTERVAL_MS = 10_000;
/** Longer input cannot be a key; refuse it before hashing. */
export const MAX_KEY_LENGTH = 256;

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new key in clear (shown once) and its public id. */
export function newKey(): { key: string; id: string } {
  return {
    key: KEY_PREFIX + randomBytes(32).toString('base64url'),
    id: `key_${randomBytes(8).toString('base64url').slice(0, 10)}`,
  };
}

/**
 * Whether a key's last-used time is due a write (at most once per TOUCH_INTERVAL_MS per key, or when the clock
 * stepped back); when it is, `lastTouch` (id -> epoch ms of this process's last write) is updated.
 */
export function touchDue(lastTouch: Map<string, number>, id: string, nowMs: number): boolean {
  const last = lastTouch.get(id);
  if (last !== undefined && nowMs - last < TOUCH_INTERVAL_MS && nowMs >= last) return false;
  lastTouch.set(id, nowMs);
  return true;
}

/** A new key's scope, plan and limits, checked (AppError `invalid_parameter` naming the parameter). */
export function checkNewKey(input: CreateApiKeyInput): {
  scope: KeyScope;
  plan: KeyPlan;
  perSecond: number | null;
  daily: number | null;
} {
  const scope = input.scope ?? 'read';
  const plan = input.plan ?? 'free';
  if (!KEY_SCOPES.includes(scope)) {
    throw new AppError('invalid_parameter', `Unknown scope '${scope}': expected read or read_write`, {
      parameter: 'scope',
    });
  }
  checkPlan(plan);
  return { scope, plan, ...checkPlanLimits(plan, input.perSecond, input.daily) };
}

/** A plan change's limits, checked. */
export function checkPlanChange(change: PlanChange): { perSecond: number | null; daily: number | null } {
  checkPlan(change.plan);
  return checkPlanLimits(change.plan, change.perSecond, change.daily);
}

function checkPlan(plan: KeyPlan): void {
  if (!KEY_PLANS.includes(plan)) {
    throw new AppError('invalid_parameter', `Unknown plan '${plan}': expected free, pro or enterprise`, {
      parameter: 'plan',
    });
  }
}

/**
 * Free and Pro have fixed numbers; Enterprise keys carry their own, both of them. Refusing numbers on the other
 * plans keeps a key's limits answerable from its plan alone.
 */
function checkPlanLimits(
  plan: KeyPlan,
  perSecondInput: number | null | undefined,
  dailyInput: number | null | undefined,
): { perSecond: number | null; daily: number | null } {
  const perSecond = checkLimit('perSecond', perSecondInput);
  const daily = checkLimit('daily', dailyInput);
  if (plan === 'enterprise' && (perSecond === null || daily === null)) {
    throw new AppError('invalid_parameter', 'Enterprise keys need both a per-second and a daily limit', {
      parameter: perSecond === null ? 'perSecond' : 'daily',
    });
  }
  if (plan !== 'enterprise' && (perSecond !== null || daily !== null)) {
    throw new AppError(
      'invalid_parameter',
      `Custom limits are for enterprise keys; the ${plan} plan's are fixed`,
      {
        parameter: perSecond !== null ? 'perSecond' : 'daily',
      },
    );
  }
  return { perSecond, daily };
}

function checkLimit(name: string, value: number | null | undefined): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new AppError('invalid_parameter', `${name} must be a whole number >= 0`, { parameter: name });
  }
  return value;
}

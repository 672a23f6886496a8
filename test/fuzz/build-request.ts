/**
 * A plan made into the bytes sent: picks resolved against the pools, the path filled and encoded, the query
 * built, the credential put in the Authorization header, and header values kept to what HTTP can carry (a
 * client library would refuse the rest before sending).
 */
import { fillPath } from './operations.ts';
import type { Pools } from './pools.ts';
import type { Credential, Plan } from './request-plan.ts';
import type { Request } from './send.ts';
import type { Target } from './target.ts';

export interface Built {
  request: Request;
  /** The JSON the body holds, as sent (null when it is not JSON). */
  json: unknown;
  path: Record<string, string>;
  query: URLSearchParams;
  /** One line for a report: method, path and query cut short, the credential. */
  describe: string;
}

const HEADER_UNSAFE = /[^\t\x20-\x7e\x80-\xff]/g;
const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function authorization(credential: Credential, target: Target, pools: Pools): string | null {
  switch (credential) {
    case 'none':
      return null;
    case 'bogus':
      return 'Bearer sp_notARealKeyButShapedLikeOne000000000000000';
    case 'admin':
      return `Bearer ${target.adminToken}`;
    case 'session':
      return `Bearer ${pools.resolve({ pool: 'session', pick: 0 })}`;
    default:
      return `Bearer ${target.keys[credential]}`;
  }
}

function bodyOf(
  plan: Plan,
  pools: Pools,
): { bytes?: Buffer; json: unknown; headers: Record<string, string> } {
  if (!plan.body) return { json: null, headers: {} };
  if ('json' in plan.body) {
    const json = pools.fill(plan.body.json);
    return {
      bytes: Buffer.from(JSON.stringify(json) ?? 'null'),
      json,
      headers: { 'content-type': 'application/json' },
    };
  }
  const { bytes, contentType, declaredLength } = plan.body.raw;
  let json: unknown = null;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {}
  const headers: Record<string, string> = {};
  if (contentType) headers['content-type'] = contentType;
  if (declaredLength) headers['content-length'] = String(declaredLength);
  return { bytes, json, headers };
}

/** The headers a report names (not the credential): each cut short. */
function describeHeaders(headers: Record<string, string>): string {
  const shown = Object.entries(headers)
    .filter(([name]) => name !== 'authorization')
    .map(
      ([name, value]) =>
        `${name}: ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...(${value.length})` : value)}`,
    );
  return shown.length > 0 ? ` {${shown.join(', ')}}` : '';
}

function describeBody(bytes: Buffer | undefined): string {
  if (!bytes) return '';
  const text = bytes.subarray(0, 200).toString('utf8');
  return ` body ${JSON.stringify(text)}${bytes.length > 200 ? `...(${bytes.length} bytes)` : ''}`;
}

export function buildRequest(plan: Plan, pools: Pools, target: Target): Built {
  const path = Object.fromEntries(Object.entries(plan.path).map(([k, v]) => [k, asText(pools.fill(v))]));
  const query = new URLSearchParams();
  for (const [name, value] of plan.query) query.append(asText(pools.fill(name)), asText(pools.fill(value)));
  const body = bodyOf(plan, pools);
  const headers: Record<string, string> = { ...body.headers };
  for (const [name, value] of plan.headers)
    headers[name] = asText(pools.fill(value)).replace(HEADER_UNSAFE, '?');
  const auth = authorization(plan.credential, target, pools);
  if (auth) headers.authorization = auth;
  const search = query.toString();
  const pathAndQuery = `${fillPath(plan.op.template, path)}${search ? `?${search}` : ''}`;
  const short =
    pathAndQuery.length > 160 ? `${pathAndQuery.slice(0, 160)}...(${pathAndQuery.length})` : pathAndQuery;
  return {
    request: { method: plan.op.method, path: pathAndQuery, headers, body: body.bytes },
    json: body.json,
    path,
    query,
    describe: `${plan.op.method} ${short} [${plan.credential}]${describeHeaders(headers)}${describeBody(body.bytes)}`,
  };
}

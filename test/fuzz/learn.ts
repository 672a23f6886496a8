/**
 * What an answer teaches the run: ids the service handed out go into the pools (so later requests can name
 * them), ids it removed come out, and an admin-token rotation the run made is followed.
 */
import type { Answer } from './answer-check.ts';
import type { Built } from './build-request.ts';
import type { Pools } from './pools.ts';
import type { Plan } from './request-plan.ts';
import type { Target } from './target.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are read by member name, each checked before use
type Json = any;

function parsed(answer: Answer): Json {
  if (!String(answer.headers['content-type']).startsWith('application/json')) return null;
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    return null;
  }
}

function learnCreated(template: string, body: Json, pools: Pools, target: Target): void {
  if (typeof body.webhook_id === 'string' && template.endsWith('/webhooks')) {
    pools.add('webhookId', body.webhook_id);
    pools.add('ownWebhookId', body.webhook_id);
  }
  if (template === '/admin/keys' && typeof body.id === 'string') {
    pools.add('keyId', body.id);
    pools.add('spareKeyId', body.id);
  }
  if (typeof body.login_id === 'string') pools.add('loginId', body.login_id);
  if (typeof body.code === 'string') pools.add('signInCode', body.code);
  if (typeof body.session === 'string') pools.add('session', body.session);
  if (typeof body.stream_token === 'string') pools.add('streamToken', body.stream_token);
  if (template === '/admin/connections' && typeof body.spreadsheet_id === 'string') {
    pools.add('spreadsheetId', body.spreadsheet_id);
    pools.add('connectionId', body.spreadsheet_id);
    if (typeof body.user_key === 'string') pools.add('userKey', body.user_key);
    if (body.location === target.spareFile) pools.add('spareConnectionId', body.spreadsheet_id);
  }
}

function learnRemoved(template: string, built: Built, pools: Pools): void {
  const id = built.path.id;
  if (!id) return;
  if (template.endsWith('/webhooks/{id}')) {
    pools.remove('webhookId', id);
    pools.remove('ownWebhookId', id);
  }
  if (template === '/admin/connections/{id}') {
    for (const pool of ['spreadsheetId', 'connectionId', 'spareConnectionId'] as const)
      pools.remove(pool, id);
  }
}

export async function learn(
  plan: Plan,
  built: Built,
  answer: Answer,
  pools: Pools,
  target: Target,
): Promise<void> {
  const { template, method } = plan.op;
  if (answer.status < 200 || answer.status >= 300) return;
  const body = parsed(answer);
  const etag = answer.headers.etag;
  if (typeof etag === 'string') pools.add('etag', etag);
  if (template === '/admin/admin-token/rotate') await target.refreshAdminToken();
  if (method === 'DELETE') learnRemoved(template, built, pools);
  if (!body || typeof body !== 'object') return;
  if (method === 'POST') learnCreated(template, body, pools, target);
  for (const item of Array.isArray(body.data) ? body.data : []) {
    if (typeof item?.delivery_id === 'string') pools.add('deliveryId', item.delivery_id);
  }
}

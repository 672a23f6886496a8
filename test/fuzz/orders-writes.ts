/**
 * Which requests write to the `Orders` tab, and what they ask for in the model's terms: the tab is found as the
 * service finds it (its userKey and name, exact or differing only in letter case; or its sheet_id).
 */
import type { Built } from './build-request.ts';
import type { Plan } from './request-plan.ts';
import type { Write } from './tab-model.ts';
import type { Target } from './target.ts';
import { ORDERS } from './workbook.ts';

export type OrdersWrite = Write | 'unpredictable';

function aimsAtOrders(built: Built, target: Target): boolean {
  const { userKey, sheetName, sheetId } = built.path;
  if (sheetId !== undefined) return sheetId === target.sheetId;
  return (
    userKey === target.userKey && sheetName !== undefined && sheetName.toLowerCase() === ORDERS.toLowerCase()
  );
}

const rowNumber = (text: string | undefined) =>
  text !== undefined && /^\d+$/.test(text) ? Number(text) : NaN;

/** The write a request makes to `Orders`, or null when it makes none there. */
export function ordersWrite(plan: Plan, built: Built, target: Target): OrdersWrite | null {
  const { method, template } = plan.op;
  if (method === 'GET' || !aimsAtOrders(built, target)) return null;
  if (!(template.startsWith('/api/spreadsheets/') || template.startsWith('/v1/sheets/{sheetId}/rows')))
    return null;
  // The sheet parses what a user types: what it makes of the text is the sheet's business, not the model's.
  if (built.query.getAll('input').includes('user_entered')) return 'unpredictable';
  const body = built.json;
  if (template.endsWith('batchUpdate')) {
    const mutations = (body as { mutations?: unknown })?.mutations;
    return Array.isArray(mutations) ? { op: 'batch', mutations } : 'unpredictable';
  }
  if (template.endsWith('{row}')) {
    const row = rowNumber(built.path.row);
    if (method === 'DELETE') return { op: 'delete', row };
    return { op: 'update', row, values: body as Record<string, unknown> };
  }
  if (method === 'POST')
    return { op: 'append', rows: Array.isArray(body) ? body : [body as Record<string, unknown>] };
  return null;
}

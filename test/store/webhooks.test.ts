import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Webhooks } from '../../server/repositories/webhooks.ts';
import { registerWebhook, rotateWebhookSecret } from '../../server/webhooks/register.ts';
import { openTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

const input = {
  url: 'https://example.com/hook',
  spreadsheetId: 'wb_1',
  sheetName: 'S',
  sourceSheetId: '1',
  events: ['row.inserted' as const],
  apiKeyId: null,
};

describe.each(STORE_KINDS)('Webhooks (%s)', (kind) => {
  let opened: TestStore;
  let hooks: Webhooks & { hasAnyNow(spreadsheetId: string): boolean };
  beforeEach(async () => {
    opened = await openTestStore(kind);
    hooks = opened.webhooks;
  });
  afterEach(async () => {
    await opened.close();
  });

  it('shows the secret only at creation and rotation, signs with the current one', async () => {
    const { record, secret } = await registerWebhook(hooks, input);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(JSON.stringify(await hooks.get(record.id))).not.toContain(secret);
    const rotated = (await rotateWebhookSecret(hooks, record.id))!;
    expect(rotated).not.toBe(secret);
    expect(await hooks.secretOf(record.id)).toBe(rotated);
  });

  it('keeps the secret sealed at rest', async () => {
    const { record, secret } = await registerWebhook(hooks, input);
    const [row] = await opened.sql('SELECT secret FROM webhooks');
    expect(row?.secret).not.toContain(secret.slice(6));
    expect(String(row?.secret)).toMatch(/^sp1:/);
    expect(await hooks.secretOf(record.id)).toBe(secret);
    expect(await hooks.secretOf('wh_missing')).toBeNull();
  });

  it('updates, lists in creation order and removes', async () => {
    const a = (await registerWebhook(hooks, input)).record;
    const b = (await registerWebhook(hooks, { ...input, url: 'https://example.com/b' })).record;
    expect((await hooks.list()).map((w) => w.id)).toEqual([a.id, b.id]);
    const paused = await hooks.update(a.id, { status: 'paused', events: ['row.deleted', 'bulk.import'] });
    expect(paused).toMatchObject({ status: 'paused', events: ['row.deleted', 'bulk.import'], url: a.url });
    expect(await hooks.get(a.id)).toEqual(paused);
    expect(await hooks.update('wh_missing', { status: 'paused' })).toBeNull();
    expect(await hooks.remove(a.id)).toBe(true);
    expect(await hooks.remove(a.id)).toBe(false);
    expect(await hooks.get(a.id)).toBeNull();
    expect(await hooks.rotateSecret(a.id, 'whsec_x')).toBe(false);
  });

  it('answers hasAnyNow at once, and within a second for a webhook made or removed through another handle', async () => {
    const other = (await opened.again()).webhooks;
    expect(hooks.hasAnyNow('wb_1')).toBe(false);
    const { record } = await registerWebhook(hooks, input);
    expect(hooks.hasAnyNow('wb_1')).toBe(true);
    expect(await hooks.hasAny('wb_1')).toBe(true);
    await expect.poll(() => other.hasAnyNow('wb_1'), { timeout: 1500, interval: 20 }).toBe(true);
    expect(await other.remove(record.id)).toBe(true);
    expect(other.hasAnyNow('wb_1')).toBe(false);
    await expect.poll(() => hooks.hasAnyNow('wb_1'), { timeout: 1500, interval: 20 }).toBe(false);
    expect(hooks.hasAnyNow('wb_2')).toBe(false);
  });
});

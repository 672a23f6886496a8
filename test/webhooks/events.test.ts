import { describe, expect, it } from 'vitest';
import { buildNotifications, type ChangedRow, payloadJson } from '../../server/webhooks/events.ts';

const H = ['Name', 'Age'];
const ins = (i: number): ChangedRow => ({
  kind: 'inserted',
  row_index: i,
  before: null,
  after: [`n${i}`, i],
});
const upd = (i: number): ChangedRow => ({ kind: 'updated', row_index: i, before: ['a', 1], after: ['a', 2] });
const del = (i: number): ChangedRow => ({ kind: 'deleted', row_index: i, before: ['d', 0], after: null });

describe('buildNotifications', () => {
  it('one notification per event type that occurred, inserted then updated then deleted', () => {
    const out = buildNotifications([del(9), ins(3), upd(2), ins(4)], H, H);
    expect(out.map((n) => n.event)).toEqual(['row.inserted', 'row.updated', 'row.deleted']);
    expect(out[0]!.changed_rows).toEqual([
      { row_index: 3, before: null, after: { Name: 'n3', Age: 3 } },
      { row_index: 4, before: null, after: { Name: 'n4', Age: 4 } },
    ]);
    expect(out[2]!.changed_rows).toEqual([{ row_index: 9, before: { Name: 'd', Age: 0 }, after: null }]);
  });

  it('up to the threshold stays per type; one more is a single bulk.import', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => ins(i + 1));
    expect(buildNotifications(hundred, H, H).map((n) => n.event)).toEqual(['row.inserted']);
    const bulk = buildNotifications([...hundred, upd(200)], H, H);
    expect(bulk).toHaveLength(1);
    expect(bulk[0]).toMatchObject({ event: 'bulk.import' });
    expect(bulk[0]!.changed_rows).toHaveLength(101);
    expect(bulk[0]!.truncated).toBeUndefined();
  });

  it('caps bulk.import at 500 entries with truncated: true; the threshold is configurable', () => {
    const many = Array.from({ length: 501 }, (_, i) => ins(i + 1));
    const [bulk] = buildNotifications(many, H, H);
    expect(bulk!.changed_rows).toHaveLength(500);
    expect(bulk!.truncated).toBe(true);
    expect(
      buildNotifications([ins(1), ins(2), ins(3)], H, H, { bulkThreshold: 2, maxEntries: 500 })[0]!.event,
    ).toBe('bulk.import');
  });

  it('keys before by the old header and after by the new one', () => {
    const [n] = buildNotifications([upd(1)], ['Name', 'Age'], ['Name', 'Years']);
    expect(n!.changed_rows[0]).toEqual({
      row_index: 1,
      before: { Name: 'a', Age: 1 },
      after: { Name: 'a', Years: 2 },
    });
  });

  it('writes the seed payload, with truncated only when true', () => {
    const base = {
      webhookId: 'wh_1',
      spreadsheetId: 'wb_1',
      sheetName: 'S',
      timestampMs: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
    };
    const plain = JSON.parse(
      payloadJson({ ...base, notification: { event: 'row.inserted', changed_rows: [] } }),
    );
    expect(plain).toEqual({
      webhook_id: 'wh_1',
      event: 'row.inserted',
      spreadsheet_id: 'wb_1',
      sheet_name: 'S',
      timestamp: '2026-01-02T03:04:05.006Z',
      changed_rows: [],
    });
    const cut = JSON.parse(
      payloadJson({ ...base, notification: { event: 'bulk.import', changed_rows: [], truncated: true } }),
    );
    expect(cut.truncated).toBe(true);
  });
});

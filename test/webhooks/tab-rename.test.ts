/**
 * A webhook follows its tab by the tab's stable id; the name it shows (API, CLI) and the name in its payloads
 * follow a rename made in the file by another program.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliJson } from '../helpers/cli.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';
import { runPython } from '../helpers/openpyxl.ts';
import { webhookOverHttp } from '../helpers/webhook-to-receiver.ts';

let h: Harness;
let closeReceiver: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeReceiver?.();
  await h?.close();
});

const RENAME = `
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
wb[sys.argv[2]].title = sys.argv[3]
wb.save(sys.argv[1])
`;

describe('a renamed tab', () => {
  it("shows the tab's new name in GET /v1/webhooks/{id}, the CLI and the payload", async () => {
    h = await startHarness();
    const file = await writePeopleWorkbook(h.dir);
    const conn = await h.connect(file);
    h.context.startBackground();
    const { receiver: r, webhookId } = await webhookOverHttp(h, conn);
    closeReceiver = r.close;

    // Excel (here openpyxl) renames the tab while SheetPort runs.
    await runPython(RENAME, [file, 'People', 'Staff']);
    const res = await h.fetch(`/v1/webhooks/${webhookId}`);
    expect((await res.json()).sheet_name).toBe('Staff');

    // What the database holds, which the CLI (with no replica of its own) shows.
    expect(await cliJson(['webhooks', 'list'], { dataDir: path.join(h.dir, 'data') })).toMatchObject([
      { webhook_id: webhookId, sheet_name: 'Staff' },
    ]);

    const appended = await h.fetch(rowsPath(conn, 'Staff'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Name: 'Renamed' }),
    });
    expect(appended.status).toBe(201);
    await r.waitFor(1);
    expect(r.received[0]!.json).toMatchObject({
      webhook_id: webhookId,
      event: 'row.inserted',
      sheet_name: 'Staff',
    });
    expect(r.received[0]!.signatureOk).toBe(true);
  }, 30_000);
});

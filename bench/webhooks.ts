/**
 * `node bench/webhooks.ts`: webhook delivery throughput and the latency of noticing a save made by another
 * program. The receiver runs in its own process; the sender is the real delivery worker (SQLite outbox,
 * signing, one HTTP POST per notification) in this one.
 *
 *   throughput: 5,000 notifications queued at once, time until every one is recorded as succeeded
 *   detection:  a cell changed and saved with ExcelJS (as another program would), time until the receiver has
 *               the row.updated notification; 15 saves, median and worst
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { createServiceContext } from '../server/context.ts';
import { registerWebhook } from '../server/webhooks/register.ts';

const NOTIFICATIONS = Number(process.env.BENCH_NOTIFICATIONS) || 5000;
const SAVES = 15;

interface Received {
  id: string;
  at: number;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sheetport-bench-webhooks-'));
  const receiver = fork(new URL('./receiver.ts', import.meta.url), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const arrivals: Received[] = [];
  const listeners: (() => void)[] = [];
  receiver.on('message', (m: { type: string; port?: number; items?: Received[] }) => {
    if (m.type === 'received') {
      arrivals.push(...(m.items ?? []));
      for (const l of listeners) l();
    }
  });
  const [ready] = (await once(receiver, 'message')) as [{ port: number }];
  const url = `http://127.0.0.1:${ready.port}/hook`;
  const waitFor = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (arrivals.length >= count) resolve();
      };
      listeners.push(check);
      check();
    });

  const file = path.join(dir, 'bench.xlsx');
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Data');
  ws.addRow(['id', 'name', 'value']);
  for (let i = 1; i <= 200; i++) ws.addRow([i, `row ${i}`, i * 10]);
  await wb.xlsx.writeFile(file);

  const context = createServiceContext({ dataDir: path.join(dir, 'data'), log: () => {} });
  try {
    const conn = await context.connections.create({
      name: 'bench.xlsx',
      sourceKind: 'workbook',
      idPrefix: 'wb_',
      location: file,
    });
    const tab = await context.spreadsheets.of(conn).tab({ name: 'Data' });
    const { record } = await registerWebhook(context.webhooks, {
      url,
      spreadsheetId: conn.spreadsheetId,
      sheetName: 'Data',
      sourceSheetId: tab.sourceSheetId,
      events: ['row.inserted', 'row.updated', 'row.deleted', 'bulk.import'],
      apiKeyId: null,
    });

    // Throughput: queue the notifications in one transaction, then let the worker send them.
    const payload = JSON.stringify({ webhook_id: record.id, event: 'row.updated', changed_rows: [] });
    // Rows as the change recording queues them (due now, pending).
    const enqueue = context.db.prepare(
      `INSERT INTO deliveries (id, webhook_id, event, payload, state, attempts, next_attempt_at, created_at)
       VALUES (?, ?, 'row.updated', ?, 'pending', 0, ?, ?)`,
    );
    context.db.transaction(() => {
      for (let i = 0; i < NOTIFICATIONS; i++) {
        const now = Date.now();
        enqueue.run(`dlv_bench_${i}`, record.id, payload, now, now);
      }
    })();
    const started = performance.now();
    context.startBackground();
    await waitFor(NOTIFICATIONS);
    const count = () =>
      context.db
        .prepare<[], number>("SELECT COUNT(*) FROM deliveries WHERE state = 'succeeded'")
        .pluck()
        .get()!;
    while (count() < NOTIFICATIONS) await new Promise((r) => setTimeout(r, 5));
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `delivery throughput: ${NOTIFICATIONS} notifications in ${seconds.toFixed(2)} s = ${Math.round(NOTIFICATIONS / seconds)} per second (target >= 500)`,
    );

    // Detection latency of a save by another program.
    const latencies: number[] = [];
    for (let i = 0; i < SAVES; i++) {
      const before = arrivals.length;
      const edit = new ExcelJS.Workbook();
      await edit.xlsx.readFile(file);
      edit.getWorksheet('Data')!.getCell(`C${2 + i}`).value = 100_000 + i;
      const buffer = await edit.xlsx.writeBuffer();
      const savedAt = Date.now();
      const { writeFile } = await import('node:fs/promises');
      await writeFile(file, Buffer.from(buffer as ArrayBuffer));
      await waitFor(before + 1);
      latencies.push(arrivals[before]!.at - savedAt);
      await new Promise((r) => setTimeout(r, 300));
    }
    latencies.sort((a, b) => a - b);
    console.log(
      `detection latency of a save (${SAVES} saves): p50 ${latencies[Math.floor(SAVES / 2)]} ms, worst ${latencies.at(-1)} ms (target: seen within 2,000 ms)`,
    );
  } finally {
    await context.close();
    receiver.send({ type: 'stop' });
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

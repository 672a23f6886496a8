/**
 * Text a client sends is scanned in linear time, over real HTTP: the secret redaction every error message,
 * detail and logged URL goes through (lib/redact-secrets.ts), and the CSV formula guard every written cell goes
 * through (csv-formula-guard.ts). Both were patterns that, on a long run without a delimiter, were tried again
 * from every position: 40,000 characters and one `%` in a webhook's `sheet_name` held the server for seconds.
 * The bounds are generous (a loaded machine); what they catch took 14 s and more.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { writeCsv, writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

const GENEROUS_MS = 3_000;
const KEY = `sp_${'A1b2-C3d4_'.repeat(4)}xyz`;

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** The answer to `path` and how long it took, while a `/healthz` sent right after is answered too. */
async function timedWithProbe(path: string, init: RequestInit & { auth?: string | null } = {}) {
  const started = performance.now();
  const answer = h.fetch(path, init).then(async (res) => ({ res, body: await res.text() }));
  const probe = fetch(`${h.url}/healthz`).then((res) => ({ status: res.status, at: performance.now() }));
  const [{ res, body }, health] = await Promise.all([answer, probe]);
  const ms = performance.now() - started;
  console.log(`${init.method ?? 'GET'} ${path.slice(0, 40)}: ${ms.toFixed(0)} ms`);
  return { res, body, ms, probeMs: health.at - started, health };
}

describe('secret redaction over long client text', () => {
  it('a webhook naming a 100,000-character tab with a `%` is refused at once, and the server serves meanwhile', async () => {
    h = await startHarness();
    const connection = (await h.connectBook(await writePeopleWorkbook(h.dir))).connection;
    // Read once first, so what is timed is the refusal and not the workbook's first read.
    expect((await h.fetch(rowsPath(connection, 'People'))).status).toBe(200);
    const sheetName = `${'A'.repeat(100_000)}%`;
    const { res, body, ms, probeMs, health } = await timedWithProbe('/v1/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        url: 'https://hooks.example.com/x',
        spreadsheet_id: connection.spreadsheetId,
        sheet_name: sheetName,
      }),
    });
    expect(res.status).toBe(404);
    expect(JSON.parse(body).error.code).toBe('sheet_not_found');
    expect(health.status).toBe(200);
    expect(ms).toBeLessThan(GENEROUS_MS);
    expect(probeMs).toBeLessThan(GENEROUS_MS);
  });

  it('a 15 KB URL of `%` runs is answered at once, and an encoded key in it is still hidden', async () => {
    h = await startHarness();
    const run = `${'7'.repeat(5_000)}%41`;
    const path = `/v1/webhooks/${run}x${run}/deliveries?q=${run}&k=${KEY.replace('_', '%5F')}`;
    const { res, body, ms } = await timedWithProbe(path);
    expect(res.status).toBe(404);
    expect(ms).toBeLessThan(GENEROUS_MS);
    // The error echoes the path; the key in it, percent-encoded or not, is not echoed back.
    const encodedKeyPath = `/v1/webhooks/${KEY.replace('_', '%5F')}/deliveries`;
    const shown = await h.fetch(encodedKeyPath);
    expect(shown.status).toBe(404);
    const text = await shown.text();
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(KEY.slice(3));
    expect(body).not.toContain(KEY.slice(3));
  });
});

describe('the CSV formula guard over long cell text', () => {
  it('a 32,767-character cell of digits after a `+` is written at once, guarded, and read back as sent', async () => {
    h = await startHarness();
    const file = await writeCsv(h.dir, 'long.csv', 'Name,Note\nAnn,x\n');
    const connection = await h.connect(file);
    const note = `+${'1'.repeat(32_765)}x`;
    const { res, ms } = await timedWithProbe(rowsPath(connection, 'long'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Name: 'Bo', Note: note }),
    });
    expect(res.status).toBe(201);
    expect(ms).toBeLessThan(GENEROUS_MS);
    const rows = await (await h.fetch(rowsPath(connection, 'long'))).json();
    expect(rows.at(-1).Note).toBe(note);
    // A number with a sign is stored as it is, which is why the guard looks for one.
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(file, 'utf8')).toContain(`'${note}`);
  });
});

describe('a search of accents alone', () => {
  it('keeps every row, as the empty text it folds to does, and the server serves meanwhile', async () => {
    // A combining accent folds to nothing: the search of the column's values once tried the empty text at the
    // same place again and again, holding the server forever.
    h = await startHarness();
    const connection = await h.connect(await writeCsv(h.dir, 'notes.csv', 'Name,Note\nAnn,x\nBo,\nCy,Zoë\n'));
    for (const query of [
      `search=${encodeURIComponent('Note:\u0301')}`,
      `search=${encodeURIComponent('Note:\u0301\u0308')}&sort=-Name`,
      `where=${encodeURIComponent("Note contains '\u0301'")}`,
      `where=${encodeURIComponent("Name starts with '\u0301' and Note ends with '\u0308'")}`,
    ]) {
      const { res, body, ms, health } = await timedWithProbe(rowsPath(connection, 'notes', `?${query}`));
      expect(res.status, query).toBe(200);
      expect(JSON.parse(body).length, query).toBe(3);
      expect(health.status).toBe(200);
      expect(ms).toBeLessThan(GENEROUS_MS);
    }
  });
});

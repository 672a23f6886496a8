import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WORKBOOK_FILE_ARG } from '../../server/lib/workbook-file-types.ts';
import { pasteIntoBash, type RunningCli, startCli } from '../helpers/cli.ts';

const dirs: string[] = [];
const children: RunningCli[] = [];
afterAll(async () => {
  for (const c of children) await c.stop('SIGKILL');
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A new temp dir whose name has a space and a quote, so the printed lines must quote it. */
async function awkwardDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "sheetport first run's "));
  dirs.push(dir);
  return dir;
}

/** Start a long-running CLI command; `out()` is its stdout so far, `until` resolves once it shows `pattern`. */
async function startUntil(args: string[], pattern: RegExp) {
  const started = await startCli(args, { until: pattern });
  children.push(started);
  return { started, out: started.stdout(), now: started.stdout };
}

/** Run a printed line the way a user does: pasted into a shell, here bash, from an unrelated directory. */
const shell = pasteIntoBash;

/** The indented line of `out` that starts with `prefix`. */
function lineStarting(out: string, prefix: string): string {
  const line = out
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.startsWith(prefix));
  expect(line, `a line starting with ${prefix} in:\n${out}`).toBeDefined();
  return line!;
}

/** The `sh` blocks of one README section, with line continuations joined. */
async function readmeShellBlocks(section: string): Promise<string[]> {
  const readme = await readFile(path.resolve('README.md'), 'utf8');
  const start = readme.indexOf(`## ${section}\n`);
  const end = readme.indexOf('\n## ', start + 1);
  const text = readme.slice(start, end === -1 ? undefined : end);
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe('npm start: every printed line works when pasted', () => {
  it('the export line sets what the README uses; the curl, CLI and README lines then work', async () => {
    const dataDir = path.join(await awkwardDir(), 'demo data');
    const { started, out } = await startUntil(['demo', '--port', '0', '--data-dir', dataDir], /Ctrl-C/);
    const exportLine = lineStarting(out, 'export ');
    const curlLine = lineStarting(out, 'curl ');
    const cliLine = out
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.endsWith(' keys list'))!;
    expect(cliLine).toBeDefined();

    // The export line sets the data dir and the README's variables.
    const vars = await shell(
      `${exportLine}\nprintf '%s\\n' "$SHEETPORT_DATA_DIR" "$SP" "$KEY" "$USER_KEY" "$SPREADSHEET_ID"`,
    );
    const [dir, sp, key, userKey, spreadsheetId] = vars.trim().split('\n');
    expect(dir).toBe(dataDir);
    expect(sp).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(key).toMatch(/^sp_/);
    expect(userKey).toBeTruthy();
    expect(spreadsheetId).toBeTruthy();

    // The curl line as printed.
    expect(JSON.parse(await shell(curlLine))).toHaveLength(3);
    // The CLI line as printed, from another directory and without the variable: it sees the demo key.
    expect(await shell(cliLine)).toMatch(/\bdemo\b/);
    // After the export line, a bare CLI command sees the demo's data dir too (the trap: it showed nothing).
    const program = cliLine.slice(0, cliLine.indexOf(' --data-dir'));
    const keys = JSON.parse(await shell(`${exportLine}\n${program} keys list --json`));
    expect(keys.map((k: { name: string }) => k.name)).toContain('demo');

    // The README's first requests, run as written after the export line (its URLs use $SP, its auth $KEY).
    const blocks = await readmeShellBlocks('A first request');
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const block of blocks) await shell(`${exportLine}\n${block}`);

    await started.stop('SIGTERM');
  });
});

describe('sheetport serve on an empty data dir', () => {
  it('says what to do next, in lines that work when pasted', async () => {
    const dataDir = await awkwardDir();
    const { started, out } = await startUntil(['serve', '--port', '0', '--data-dir', dataDir], /demo\)/);
    expect(out).toContain('No spreadsheets connected yet');
    const connectLine = lineStarting(out, 'node ').replace(WORKBOOK_FILE_ARG, '"$CSV"');
    const keysLine = out
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.endsWith('keys create --scope read_write'))!;
    const csv = path.join(dataDir, 'team.csv');
    await writeFile(csv, 'name\nAnn\n');
    expect(await shell(connectLine, { CSV: csv })).toContain('Connected');
    expect(await shell(keysLine)).toMatch(/sp_\S+/);
    await started.stop('SIGTERM');

    // With a connection and a key there is nothing to suggest.
    const again = await startUntil(['serve', '--port', '0', '--data-dir', dataDir], /listening/);
    await new Promise((r) => setTimeout(r, 500));
    expect(again.now()).not.toContain('In another terminal');
    await again.started.stop('SIGTERM');
  });
});

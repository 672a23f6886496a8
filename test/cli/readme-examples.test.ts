/**
 * The README's HTTP examples as a reader uses them: `npm start`'s export line pasted into bash, then every curl
 * command of every `sh` block of the README, one at a time and in order, against that running demo. Each must
 * answer 2xx (curl --fail-with-body) with JSON; the change-feed example lists the row the append example wrote.
 * Every route the README's prose names (`GET /v1/...?...`) is written as docs/api.md's route table writes it,
 * required query parameters included.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { pasteIntoBash, type RunningCli, startCli } from '../helpers/cli.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

let tmp: string | undefined;
let demo: RunningCli | undefined;
afterAll(async () => {
  await demo?.stop('SIGKILL');
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Every curl command in the README's `sh` blocks, line continuations joined, in reading order. */
function readmeCurlCommands(): string[] {
  return [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1]!.replace(/\\\n\s*/g, '').split('\n'))
    .map((line) => line.trim())
    .filter((line) => line.startsWith('curl '));
}

/** A pasted script in bash, where curl fails on an HTTP error status and prints the body it got. */
const bash = (script: string) => pasteIntoBash(script);

describe("the README's examples", () => {
  it('every curl command answers 2xx against `npm start`, and the change feed shows the appended row', async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-readme-'));
    demo = await startCli(['demo', '--json', '--port', '0'], { dataDir: tmp });
    const { exports } = JSON.parse(demo.line) as { exports: string };

    const commands = readmeCurlCommands();
    expect(commands.length).toBeGreaterThanOrEqual(4);
    const answers: { command: string; body: unknown }[] = [];
    for (const command of commands) {
      const out = await bash(`${exports}\n${command}`).catch((err: { stdout?: string; message: string }) => {
        throw new Error(`README example failed: ${command}\n${err.stdout ?? ''}\n${err.message}`);
      });
      answers.push({ command, body: JSON.parse(out) });
    }

    const feed = answers.find((a) => a.command.includes('updated_since='));
    expect(feed, 'the README shows the change feed').toBeDefined();
    const { data } = feed!.body as { data: { change: string; values: Record<string, unknown> | null }[] };
    expect(data).toContainEqual(
      expect.objectContaining({
        change: 'inserted',
        values: expect.objectContaining({ 'Order ID': 'ORD-9999' }),
      }),
    );

    await demo.stop('SIGTERM');
  }, 120_000);

  it("names routes as docs/api.md's route table does, required parameters included", () => {
    const api = fs.readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');
    const tableRoutes = new Set(
      [...api.matchAll(/^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*`([^`]+)`/gm)].map((m) => m[2]),
    );
    const named = [...readme.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`\s]+)`/g)].map((m) => m[2]!);
    expect(named.length).toBeGreaterThan(0);
    for (const route of named) expect(tableRoutes, route).toContain(route);
  });
});

// The fake against real Google traffic: every recording in test/fixtures/google-recordings replays
// with the same statuses and bodies, and the fake's code holds none of the recorded ids, names,
// titles or written values (it models Google's behaviour, it does not look answers up).
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { replayDirectory } from './google-sheets/replay.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const recordings = path.resolve(here, '../fixtures/google-recordings');
const fakeDir = path.join(here, 'google-sheets');

type Interaction = { request: { uri: string; body: string | null }; response: { body: { string: string } } };

/** Every id, Drive name, sheet title and written string the recordings contain. */
async function recordedFacts(): Promise<Set<string>> {
  const facts = new Set<string>();
  const visit = (value: unknown, key?: string) => {
    if (typeof value === 'string') {
      if (key === 'spreadsheetId' || key === 'id' || key === 'name' || key === 'title') facts.add(value);
      return;
    }
    if (typeof value === 'number' && key === 'sheetId' && value > 0) facts.add(String(value));
    if (Array.isArray(value)) {
      for (const v of value) {
        if (typeof v === 'string' && key === undefined && v.length > 6) facts.add(v); // not bare words like "string"
        visit(v, Array.isArray(v) ? undefined : key);
      }
      return;
    }
    if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, k);
  };
  for (const file of (await readdir(recordings)).filter((f) => f.endsWith('.json'))) {
    const { interactions } = JSON.parse(await readFile(path.join(recordings, file), 'utf8')) as {
      interactions: Interaction[];
    };
    for (const { request, response } of interactions) {
      for (const text of [request.body, response.body.string]) {
        try {
          visit(JSON.parse(text ?? ''));
        } catch {
          // not JSON (empty DELETE answers)
        }
      }
    }
  }
  facts.delete('Sheet1'); // Google's default title for the first sheet, not a recorded value
  return facts;
}

describe('Google Sheets fake: replay of recorded Google traffic', () => {
  it('answers every recorded request as Google did', { timeout: 60_000 }, async () => {
    const files = (await readdir(recordings)).filter((f) => f.endsWith('.json'));
    const { results, matched, total } = await replayDirectory(recordings);
    const mismatches = results.filter((r) => r.mismatch).map((r) => `${r.name}: ${r.mismatch}`);
    expect(mismatches).toEqual([]);
    expect(total).toBe(files.length);
    expect(total).toBeGreaterThanOrEqual(73);
    expect(matched).toBe(total);
  });

  it('holds no recorded id, name, title or value in its source', async () => {
    const facts = await recordedFacts();
    expect(facts.size).toBeGreaterThan(100);
    const sources = (await readdir(fakeDir)).filter((f) => f.endsWith('.ts'));
    const found: string[] = [];
    for (const file of sources) {
      const text = await readFile(path.join(fakeDir, file), 'utf8');
      for (const fact of facts) if (text.includes(fact)) found.push(`${file}: ${fact}`);
    }
    expect(found).toEqual([]);
  });

  it('notices a recorded answer the fake does not give, and the CLI then exits non-zero', {
    timeout: 30_000,
  }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'replay-'));
    try {
      const source = JSON.parse(
        await readFile(path.join(recordings, 'WorksheetTest.test_batch_get.json'), 'utf8'),
      ) as {
        interactions: Interaction[];
      };
      await writeFile(path.join(dir, 'untouched.json'), JSON.stringify(source));
      const tampered = structuredClone(source);
      const answer = tampered.interactions.find((i) => i.response.body.string.includes('"valueRanges"'));
      if (!answer) throw new Error('recording changed: no batchGet answer');
      answer.response.body.string = answer.response.body.string.replace('"B4"', '"b4"');
      await writeFile(path.join(dir, 'tampered.json'), JSON.stringify(tampered));
      const run = spawnSync(process.execPath, [path.join(fakeDir, 'replay-cli.ts'), dir], {
        encoding: 'utf8',
      });
      const lines = run.stdout.trim().split('\n');
      expect(lines.at(-1)).toBe('replay: 1 of 2 recordings match');
      expect(lines[0]).toMatch(/^MISMATCH tampered: .*expected "b4", got "B4"/);
      expect(run.status).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

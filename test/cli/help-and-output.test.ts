/**
 * What the `sheetport` program says about itself and prints for people: every option's help states its default
 * once, the program's description names every kind of spreadsheet it reads, and `connect` lists a workbook's
 * tabs in aligned columns. Through the real CLI (bin/sheetport.js as a child process), and, to reach every
 * command, through the program that CLI builds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../server/cli.ts';
import { kindNames, sourceKind } from '../../server/sources/index.ts';
import { runCliSync } from '../helpers/cli.ts';

let tmp: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-help-')));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function sheetport(...args: string[]): string {
  const r = runCliSync(args, { dataDir: path.join(tmp, 'data'), cwd: tmp, env: { COLUMNS: '100' } });
  if (r.code !== 0) throw new Error(`sheetport ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/** Every command of the program, subcommands included, with its full name (`keys create`). */
function everyCommand(command: Command, prefix = ''): { name: string; command: Command }[] {
  return command.commands.flatMap((c) => {
    const name = `${prefix}${c.name()}`;
    return [{ name, command: c }, ...everyCommand(c, `${name} `)];
  });
}

describe('sheetport help', () => {
  it('keys create --help states the --connection default once', () => {
    const help = sheetport('keys', 'create', '--help');
    // The option's text runs from its flag to the next option's flag.
    const option = help.slice(help.indexOf('--connection'), help.indexOf('--name')).replace(/\s+/g, ' ');
    expect(option.match(/default/g)).toHaveLength(1);
    expect(option).toContain('(default: all)');
  });

  it("no option of any command shows its default twice, or as an empty list's brackets", () => {
    const commands = everyCommand(buildProgram(false));
    expect(commands.length).toBeGreaterThan(20);
    for (const { name, command } of commands) {
      const help = command.createHelp();
      for (const option of command.options) {
        const text = help.optionDescription(option);
        const where = `${name} ${option.flags}: ${text}`;
        expect(text.match(/default/gi)?.length ?? 0, where).toBeLessThanOrEqual(1);
        expect(text, where).not.toContain('[]');
      }
    }
  });

  it('--help names every kind of spreadsheet the service reads: Google Sheets and local files', () => {
    const help = sheetport('--help');
    const description = help.split('\n\n')[1]?.replace(/\s+/g, ' ') ?? '';
    expect(description).toMatch(/Google Sheets/);
    expect(description).toMatch(/\.xlsx, \.xlsm or \.csv/);
    for (const name of kindNames()) expect(description).toContain(sourceKind(name).label);
  });

  it('connect --help says what a location of each kind looks like', () => {
    const help = sheetport('connect', '--help').replace(/\s+/g, ' ');
    const argument = help.slice(help.indexOf('kind-or-location where'), help.indexOf(' location where'));
    for (const name of kindNames()) expect(argument).toContain(sourceKind(name).describe);
  });
});

describe('sheetport connect', () => {
  it("lists the workbook's tabs in aligned columns", async () => {
    const file = path.join(tmp, 'three tabs.xlsx');
    const wb = new ExcelJS.Workbook();
    for (const [name, rows] of [
      ['Orders', 50],
      ['Products and services', 3],
      ['X', 1200],
    ] as const) {
      const ws = wb.addWorksheet(name);
      ws.addRow(['id', 'value']);
      for (let i = 0; i < rows; i++) ws.addRow([i, i * 2]);
    }
    await wb.xlsx.writeFile(file);

    const out = sheetport('connect', file);
    const lines = out.split('\n');
    const tabs = lines.slice(lines.indexOf('  sheets:') + 1).filter(Boolean);
    expect(tabs.map((l) => l.trim().split(/\s{2,}/))).toEqual([
      ['Orders', '50 rows', expect.stringMatching(/^\(sheet_id wb_.+~1\)$/)],
      ['Products and services', '3 rows', expect.stringMatching(/^\(sheet_id wb_.+~2\)$/)],
      ['X', '1200 rows', expect.stringMatching(/^\(sheet_id wb_.+~3\)$/)],
    ]);
    // Each column starts at the same place on every line.
    const starts = (word: RegExp) => new Set(tabs.map((l) => l.search(word)));
    expect(starts(/\d+ rows/).size).toBe(1);
    expect(starts(/\(sheet_id/).size).toBe(1);
  });
});

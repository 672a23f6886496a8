/**
 * The Source contract: what routes, the replica and webhooks rely on from any kind of source, as one suite
 * parametrised by a factory. Every kind runs it (see contract-*.test.ts): typed reads, each mutation kind,
 * atomic batches, outside changes seen through `watch`, a version that moves with the content, and a
 * locked or vanished spreadsheet or tab.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../server/errors.ts';
import type { CellValue, Mutation, Source, TabSnapshot, WriteOptions } from '../../server/sources/source.ts';
import { writeOne } from '../helpers/source-write.ts';

export interface ContractSpreadsheet {
  source: Source;
  /** The id of the tab seeded with `header` and `rows`. */
  sheetId: string;
  /** Change the spreadsheet the way another program would (a save in Excel, an edit in the browser). */
  editOutside(header: string[], rows: CellValue[][]): Promise<void>;
  /** Make the spreadsheet refuse writes as it does while another program holds it; returns the undo. */
  lock?(): Promise<() => Promise<void>>;
  /** Make the spreadsheet disappear. */
  remove(): Promise<void>;
  dispose(): Promise<void>;
}

export interface ContractFactory {
  name: string;
  create(header: string[], rows: CellValue[][]): Promise<ContractSpreadsheet>;
}

const PLAIN: WriteOptions = { allowFormulas: false, userEntered: false };
const HEADER = ['Name', 'Age', 'Member', 'Note'];
const ROWS: CellValue[][] = [
  ['Ann', 31, true, '007'],
  ['Bob', 25, false, null],
  ['Cid', 40.5, true, 'x'],
];

async function rejection(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

function tabOf(snapshot: { tabs: TabSnapshot[] }, id: string): TabSnapshot {
  const tab = snapshot.tabs.find((t) => t.sourceSheetId === id);
  if (!tab) throw new Error(`no tab ${id}`);
  return tab;
}

/** Waits for `check` to hold, polling; the watch of a source reports within a few seconds. */
async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function sourceContract(factory: ContractFactory): void {
  describe(`Source contract: ${factory.name}`, () => {
    let open: ContractSpreadsheet | null = null;
    const make = async (header = HEADER, rows = ROWS) => {
      open = await factory.create(header, rows);
      return open;
    };
    afterEach(async () => {
      await open?.dispose();
      open = null;
    });

    it('reads a tab with its header and typed values; text that looks like a number stays text', async () => {
      const { source, sheetId } = await make();
      const tab = tabOf(await source.read(), sheetId);
      expect(tab.header).toEqual(HEADER);
      expect(tab.typed).toEqual(ROWS);
      expect(tab.formatted[0]?.[0]).toBe('Ann');
      expect(typeof source.capabilities.limits.maxCellChars).toBe('number');
      expect(typeof source.capabilities.formulas).toBe('boolean');
    });

    it('appends, updates and deletes, answering counts and the new snapshot', async () => {
      const { source, sheetId } = await make();
      const appended = await writeOne(
        source,
        sheetId,
        [{ op: 'append', values: { Name: 'Dee', Age: 52 } }],
        PLAIN,
      );
      expect(appended).toMatchObject({ appended: 1, updated: 0, deleted: 0 });
      expect(tabOf(appended.snapshot, sheetId).typed.at(-1)).toEqual(['Dee', 52, null, null]);

      const updated = await writeOne(
        source,
        sheetId,
        [{ op: 'update', row: 2, values: { Note: 'hi' } }],
        PLAIN,
      );
      expect(updated.updated).toBe(1);
      expect(tabOf(updated.snapshot, sheetId).typed[1]).toEqual(['Bob', 25, false, 'hi']);

      const deleted = await writeOne(source, sheetId, [{ op: 'delete', row: 1 }], PLAIN);
      expect(deleted.deleted).toBe(1);
      expect(tabOf(deleted.snapshot, sheetId).typed.map((r) => r[0])).toEqual(['Bob', 'Cid', 'Dee']);

      // What a fresh read says is what the writes answered.
      expect(tabOf(await source.read(), sheetId).typed).toEqual(tabOf(deleted.snapshot, sheetId).typed);
    });

    it('applies a batch atomically: one bad mutation changes nothing and is named by its index', async () => {
      const { source, sheetId } = await make();
      const before = tabOf(await source.read(), sheetId).typed;
      const versionBefore = await source.version();
      const bads: Mutation[] = [
        { op: 'update', row: 99, values: { Name: 'x' } },
        { op: 'append', values: { Nope: 1 } },
        { op: 'append', values: { Name: 'a\ud800' } },
      ];
      for (const bad of bads) {
        const err = await rejection(
          writeOne(
            source,
            sheetId,
            [{ op: 'append', values: { Name: 'ok' } }, { op: 'update', row: 1, values: { Age: 1 } }, bad],
            PLAIN,
          ),
        );
        expect(isAppError(err) && err.details.index).toBe(2);
      }
      expect(await source.version()).toBe(versionBefore);
      expect(tabOf(await source.read(), sheetId).typed).toEqual(before);
    });

    it('reads a formula it can hold as its result, its text in `withFormulas`, and computes it again after a write', async () => {
      const { source, sheetId } = await make();
      if (!source.capabilities.formulas) return; // a .csv file holds no formulas (CONTRACT 2): nothing to read
      const formulas: WriteOptions = { allowFormulas: true, userEntered: false };
      const written = await writeOne(
        source,
        sheetId,
        [{ op: 'append', values: { Name: 'Sum', Age: '=B2+B3' } }],
        formulas,
      );
      expect(tabOf(written.snapshot, sheetId).typed.at(-1)).toEqual(['Sum', 56, null, null]);
      const updated = await writeOne(source, sheetId, [{ op: 'update', row: 1, values: { Age: 1 } }], PLAIN);
      const tab = tabOf(updated.snapshot, sheetId);
      expect(tab.typed.at(-1)).toEqual(['Sum', 26, null, null]);
      expect(tab.withFormulas?.at(-1)).toEqual(['Sum', '=B2+B3', null, null]);
      expect(tabOf(await source.read(), sheetId).typed.at(-1)).toEqual(['Sum', 26, null, null]);
    });

    it('refuses a write to a tab that does not exist', async () => {
      const { source } = await make();
      const err = await rejection(writeOne(source, 'no-such-tab', [{ op: 'delete', row: 1 }], PLAIN));
      expect(isAppError(err) && err.code).toBe('sheet_not_found');
    });

    it('has a version that stays while nothing changes and moves with a write and an outside edit', async () => {
      const spreadsheet = await make();
      const { source, sheetId } = spreadsheet;
      const v1 = await source.version();
      expect(await source.version()).toBe(v1);
      await writeOne(source, sheetId, [{ op: 'append', values: { Name: 'Eve' } }], PLAIN);
      const v2 = await source.version();
      expect(v2).not.toBe(v1);
      await spreadsheet.editOutside(HEADER, [['Zed', 1, true, 'z']]);
      const v3 = await source.version();
      expect(v3).not.toBe(v2);
      expect(tabOf(await source.read(), sheetId).typed).toEqual([['Zed', 1, true, 'z']]);
    });

    it('tells watchers about an outside change, and stops telling them when unwatched', async () => {
      const spreadsheet = await make();
      let told = 0;
      const unwatch = spreadsheet.source.watch(() => told++);
      const before = told;
      await spreadsheet.editOutside(HEADER, [['Outside', 2, false, null]]);
      await eventually(() => told > before);
      unwatch();
      const after = told;
      await new Promise((r) => setTimeout(r, 400));
      expect(told).toBe(after);
    });

    it('refuses writes while another program holds the spreadsheet, and writes nothing', async () => {
      const spreadsheet = await make();
      if (!spreadsheet.lock) return; // this kind has no notion of a lock held by another program
      const before = await spreadsheet.source.version();
      const unlock = await spreadsheet.lock();
      const err = await rejection(
        writeOne(spreadsheet.source, spreadsheet.sheetId, [{ op: 'append', values: { Name: 'x' } }], PLAIN),
      );
      expect(isAppError(err) && err.code).toBe('locked');
      expect(await spreadsheet.source.version()).toBe(before);
      await unlock();
      await writeOne(
        spreadsheet.source,
        spreadsheet.sheetId,
        [{ op: 'append', values: { Name: 'x' } }],
        PLAIN,
      );
    });

    it('answers a vanished spreadsheet with an error, not a crash or a stale read', async () => {
      const spreadsheet = await make();
      await spreadsheet.source.read();
      await spreadsheet.remove();
      const err = await rejection(spreadsheet.source.version().then(() => spreadsheet.source.read()));
      expect(isAppError(err)).toBe(true);
    });
  });
}

/**
 * The signs of a save in place caught half way (server/sources/workbook/guard/half-saved.ts): a package's, and a
 * .csv's, one verdict at a time. The same rule over HTTP, with real files and a real webhook receiver: saves-in-place.test.ts and
 * test/changes/save-in-place-webhook.test.ts.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  packageCutShort,
  type TextVerdict,
  TextVersions,
} from '../../../server/sources/workbook/guard/half-saved.ts';
import type { FileBytes } from '../../../server/sources/workbook/guard/read-regular-file.ts';
import { checkZipPackage } from '../../../server/sources/workbook/guard/zip-package.ts';
import { writePeopleWorkbook } from '../../helpers/fixtures.ts';

const NOW = Date.now();
const version = (text: string, inode = 7, modifiedMs = NOW): FileBytes => ({
  bytes: Buffer.from(text),
  signature: `${modifiedMs}:${text.length}:${inode}`,
  modifiedMs,
  inode,
});
const OLD = `id,total\n${Array.from({ length: 20 }, (_, i) => `${i + 1},${(i + 1) * 10}`).join('\n')}\n`;

function verdictAfter(previous: FileBytes | null, next: FileBytes): TextVerdict {
  const versions = new TextVersions();
  if (previous) versions.taken(previous);
  return versions.verdict(next);
}

describe('a .csv read against the last version taken', () => {
  it('lets a first read of a file changed moments ago settle first, and takes one left alone as it is', () => {
    expect(verdictAfter(null, version('id,to'))).toBe('settle');
    expect(verdictAfter(null, version('id,to', 7, NOW - 60_000))).toBe('whole');
  });

  it('takes a save in place caught inside a line, or emptied, for a save under way', () => {
    expect(verdictAfter(version(OLD), version(OLD.slice(0, 40)))).toBe('under_way');
    expect(verdictAfter(version(OLD), version(''))).toBe('under_way');
  });

  it('lets a version whose last bytes moved settle first: shorter, or other bytes where they were', () => {
    const atLineEnd = OLD.slice(0, OLD.indexOf('5,50') + 5);
    expect(verdictAfter(version(OLD), version(atLineEnd))).toBe('settle');
    expect(verdictAfter(version(OLD), version(`${OLD.replace('20,200', '20,201')}21,210\n`))).toBe('settle');
  });

  it('takes lines appended in place, a save by rename, and a file left alone as they are', () => {
    expect(verdictAfter(version(OLD), version(`${OLD}21,210\n`))).toBe('whole');
    expect(verdictAfter(version(OLD), version(OLD.slice(0, 40), 8))).toBe('whole'); // another inode
    expect(verdictAfter(version(OLD), version(OLD.slice(0, 40), 7, NOW - 60_000))).toBe('whole');
  });

  it('compares nothing after a version that ended without a line break', () => {
    expect(verdictAfter(version('id,total\n1,10'), version('id,to'))).toBe('settle');
  });

  it('compares with what SheetPort wrote, from the chunks it wrote and the signature it got', () => {
    const versions = new TextVersions();
    const chunks = [Buffer.from(OLD.slice(0, 100)), Buffer.from(OLD.slice(100))];
    versions.written(9, OLD.length, chunks);
    expect(versions.verdict(version(`${OLD}21,210\n`, 9))).toBe('whole');
    expect(versions.verdict(version(OLD.slice(0, 40), 9))).toBe('under_way');
    expect(versions.verdict(version(OLD.replace('20,200', '20,201'), 9))).toBe('settle');
  });
});

describe('a package read before its end was written', () => {
  /** What the package check refuses `bytes` with. */
  const refusal = (bytes: Uint8Array): unknown => {
    try {
      checkZipPackage(bytes, 'book.xlsx', { maxInflatedBytes: 1 << 30, maxPartRatio: 200 });
    } catch (e) {
      return e;
    }
    throw new Error('not refused');
  };
  const cutShort = (bytes: Uint8Array) => packageCutShort(bytes, refusal(bytes));

  it('is nothing yet, or a zip begun without its directory', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'half-saved-'));
    const whole = await readFile(await writePeopleWorkbook(dir));
    await rm(dir, { recursive: true });
    for (const end of [0, 1, 3, 4, 30, whole.length >> 1, whole.length - 1])
      expect(cutShort(whole.subarray(0, end)), `cut at ${end}`).toBe(true);
  });

  it('is not a file of another kind, nor a zip that has its end', () => {
    expect(cutShort(Buffer.from('not a zip package'))).toBe(false);
    expect(cutShort(Buffer.from('id,total\n1,10\n'))).toBe(false);
    // A whole zip that is not a workbook (no [Content_Types].xml): an empty zip, its directory's end alone.
    expect(cutShort(Buffer.from('PK\x05\x06'.padEnd(22, '\0'), 'latin1'))).toBe(false);
  });
});

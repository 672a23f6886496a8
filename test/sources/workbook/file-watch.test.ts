/**
 * The workbook kind's file watch on a real folder, with an injected clock: a burst of folder events for the file
 * is one notice after the quiet time, events for other files are ignored, the poll backs the watch up, and
 * stopping cancels everything.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchFile } from '../../../server/sources/workbook/file-watch.ts';
import { ManualTimers } from '../../helpers/manual-timers.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-watch-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Real fs events arrive asynchronously: give them a moment to reach the (still unfired) debounce. */
const settle = () => new Promise((r) => setTimeout(r, 150));

describe('watchFile', () => {
  it('turns a burst of saves into one notice after the quiet time, and ignores other files', async () => {
    const file = path.join(dir, 'book.csv');
    await writeFile(file, 'a\n1\n');
    const timers = new ManualTimers();
    let told = 0;
    const stop = watchFile(file, () => told++, { timers, debounceMs: 150, pollMs: 60_000 });

    await writeFile(path.join(dir, 'other.csv'), 'x\n');
    await settle();
    timers.advance(1000);
    expect(told).toBe(0);

    for (let i = 0; i < 5; i++) await writeFile(file, `a\n${i}\n`);
    await settle();
    timers.advance(149);
    expect(told).toBe(0);
    timers.advance(1);
    expect(told).toBe(1);
    stop();
    expect(timers.active).toBe(0);
  });

  it('polls as a backup and stops polling when stopped', () => {
    const file = path.join(dir, 'book.csv');
    const timers = new ManualTimers();
    let told = 0;
    const stop = watchFile(file, () => told++, { timers, pollMs: 2000 });
    timers.advance(6000);
    expect(told).toBe(3);
    stop();
    timers.advance(6000);
    expect(told).toBe(3);
  });
});

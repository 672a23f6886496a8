/**
 * The V8 heap sizing whatever starts the service sets first thing (server/small-footprint.ts): a value the
 * process was started with wins, and in a real process the heap stays far nearer what is live under a load
 * that promotes short-lived objects, where V8's default lets it grow.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { favourSmallFootprint } from '../../server/small-footprint.ts';

const exec = promisify(execFile);
const FIRST = new URL('../../server/small-footprint-first.ts', import.meta.url).href;

/** The largest heap (MB) seen while 40 MB stay live and batches of objects live just long enough to be promoted. */
async function peakHeap(setUp: string): Promise<number> {
  const script = `
    import v8 from 'node:v8';
    ${setUp}
    const live = Array.from({ length: 300_000 }, (_, i) => ({ i, s: 'live ' + i }));
    const queue = [];
    let peak = 0;
    for (let round = 0; round < 300; round++) {
      queue.push(Array.from({ length: 20_000 }, (_, i) => ({ i, round, s: 'tmp ' + i })));
      if (queue.length > 8) queue.shift();
      peak = Math.max(peak, v8.getHeapStatistics().total_heap_size);
    }
    console.log(live.length && peak / 1048576);`;
  const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script]);
  return Number(stdout.trim());
}

describe('favourSmallFootprint', () => {
  it('leaves alone a setting the process was started with, in either spelling', () => {
    expect(favourSmallFootprint(['--heap_growing_percent=50'])).toEqual([]);
    expect(favourSmallFootprint(['--max-old-space-size=512'])).toEqual(['--heap-growing-percent=30']);
  });

  it('keeps the heap near what is live in a real process, set by importing small-footprint-first', async () => {
    const defaults = await peakHeap('');
    const small = await peakHeap(`await import(${JSON.stringify(FIRST)});`);
    expect(small).toBeLessThan(defaults * 0.8);
  });
});

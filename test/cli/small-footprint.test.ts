/**
 * The V8 heap sizing the `sheetport` command and the tray app set first thing (server/small-footprint.ts):
 * a flag the process was started with wins, and in a real process the young generation stays at its starting
 * size under an allocation-heavy load where V8's default lets it grow.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { favourSmallFootprint } from '../../server/small-footprint.ts';

const exec = promisify(execFile);
const MODULE = new URL('../../server/small-footprint.ts', import.meta.url).href;

/** New-space size (MB) after allocating a few hundred MB of short-lived objects, some surviving a while. */
async function newSpaceAfterLoad(setUp: string): Promise<number> {
  const script = `
    import v8 from 'node:v8';
    ${setUp}
    let keep = [];
    for (let i = 0; i < 3e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 20000) keep = []; }
    const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    console.log(space.space_size / 1048576);`;
  const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script]);
  return Number(stdout.trim());
}

describe('favourSmallFootprint', () => {
  it('leaves alone a setting the process was started with, in either spelling', () => {
    expect(favourSmallFootprint(['--heap_growing_percent=50', '--semi-space-growth-factor=2'])).toEqual([]);
    expect(favourSmallFootprint(['--max-old-space-size=512'])).toEqual([
      '--heap-growing-percent=30',
      '--semi-space-growth-factor=1',
    ]);
  });

  it("keeps V8's young generation at its starting size in a real process", async () => {
    const defaults = await newSpaceAfterLoad('');
    const small = await newSpaceAfterLoad(
      `const { favourSmallFootprint } = await import(${JSON.stringify(MODULE)}); favourSmallFootprint([]);`,
    );
    expect(defaults).toBeGreaterThan(4);
    expect(small).toBeLessThanOrEqual(4);
  });
});

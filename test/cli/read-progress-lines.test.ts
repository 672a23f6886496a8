import { describe, expect, it } from 'vitest';
import { readProgressLines } from '../../server/cli/read-progress-lines.ts';

describe("serve's read progress lines", () => {
  it('say nothing of a file read in a few chunks, and start again after a read that stopped half way', () => {
    const lines: string[] = [];
    let clock = 0;
    const report = readProgressLines(
      (line) => lines.push(line),
      () => clock,
    );
    report(1, '/data/small.xlsx');
    expect(lines).toEqual([]);

    for (const fraction of [0.1, 0.3, 0.6]) report(fraction, '/data/big.xlsx'); // then the read fails
    clock = 1_000;
    for (const fraction of [0.05, 0.5, 1]) {
      clock += 500;
      report(fraction, '/data/big.xlsx');
    }
    expect(lines).toEqual([
      'Reading big.xlsx ...',
      'Reading big.xlsx: 25%',
      'Reading big.xlsx: 50%',
      'Reading big.xlsx ...',
      'Reading big.xlsx: 50%',
      'Read big.xlsx in 1.0 s',
    ]);
  });
});

/** A process's memory as Linux reports it: VmHWM (the peak resident set so far) and VmRSS (resident now), in MB. */
import { readFile } from 'node:fs/promises';

export interface Memory {
  peakMb: number;
  residentMb: number;
}

export async function memoryOf(pid: number): Promise<Memory> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const mb = (field: string): number =>
    Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]) / 1024);
  return { peakMb: mb('VmHWM'), residentMb: mb('VmRSS') };
}

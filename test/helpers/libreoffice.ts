/**
 * LibreOffice as an independent reader and writer: `file` converted by headless `soffice` (a profile of its own
 * under `dir`, so runs never share one) into `dir`. Answers the converted file's path.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

export async function convertWithLibreOffice(file: string, to: 'xlsx' | 'csv', dir: string): Promise<string> {
  await promisify(execFile)(
    'soffice',
    ['--headless', `-env:UserInstallation=file://${dir}/profile`, '--convert-to', to, '--outdir', dir, file],
    { timeout: 120_000 },
  );
  return path.join(dir, `${path.basename(file, path.extname(file))}.${to}`);
}

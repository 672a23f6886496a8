/** The admin token lives in the secrets provider: the CLI prints the one the running service checks. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { type Harness, startHarness } from '../helpers/harness.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('sheetport admin-token', () => {
  it('prints the token /admin accepts, from the secrets provider (no admin-token file)', async () => {
    h = await startHarness();
    const dataDir = path.join(h.dir, 'data');
    const r = await runCli(['admin-token', '--json'], { dataDir });
    expect(r.stderr.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, '')).toBe('');
    const printed = JSON.parse(r.stdout) as { admin_token: string; secrets: string };
    expect(printed).toEqual({ admin_token: h.context.adminToken, secrets: 'file' });
    expect(fs.existsSync(path.join(dataDir, 'admin-token'))).toBe(false);

    const ok = await h.fetch('/admin/keys', { auth: printed.admin_token });
    expect(ok.status).toBe(200);
    const refused = await h.fetch('/admin/keys', { auth: `${printed.admin_token}x` });
    expect(refused.status).toBe(401);
  });
});

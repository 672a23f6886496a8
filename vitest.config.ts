import { defineConfig } from 'vitest/config';
import { mallocTunablesFor } from './bin/malloc-tunables.js';

// The test processes run with the allocator settings the `sheetport` command runs with (glibc reads them only
// when a process starts, so they go in the workers' environment): what a test measures is what the command does.
const GLIBC_TUNABLES = mallocTunablesFor(process.env);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One temporary PostgreSQL cluster for the run: every store suite runs against it as well as SQLite.
    globalSetup: ['test/global-setup.ts'],
    allowOnly: false,
    // Secrets go to the 0600 file, not the developer's keychain; test/secrets/keychain.test.ts covers the keychain.
    env: { SHEETPORT_SECRETS: 'file', ...(GLIBC_TUNABLES ? { GLIBC_TUNABLES } : {}) },
    // CI also writes a JSON report, from which .ci/run prints a plain "N passed, N failed" closing line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.vitest-results.json' }]] : ['default'],
  },
});

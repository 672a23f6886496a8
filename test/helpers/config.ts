/**
 * The configuration a service under test runs with. Tests build one and pass it in (createServiceContext,
 * startServer, startHarness); they never set `process.env`, so one test's settings cannot leak into another's.
 */
import { type GoogleConfig, readConfig, type SheetPortConfig } from '../../server/config.ts';

/** The defaults as this process's environment gives them (vitest.config.ts sets only SHEETPORT_SECRETS=file),
 * with `changes` on top. */
export function testConfig(changes: Partial<SheetPortConfig> = {}): SheetPortConfig {
  return { ...readConfig(), ...changes };
}

/** testConfig with the Google kind's settings `google` (merged over the environment's). */
export function googleConfig(google: GoogleConfig, changes: Partial<SheetPortConfig> = {}): SheetPortConfig {
  const base = testConfig(changes);
  return { ...base, google: { ...base.google, ...google } };
}

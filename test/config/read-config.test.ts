/**
 * readConfig: the environment turned into one typed configuration. Every variable is read into its setting,
 * values that are not valid fall back to the defaults, and the defaults are what an empty environment gives.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BACKUP_POLICY,
  DEFAULT_FILE_LIMITS,
  DEFAULT_MIN_FREE_MB,
  defaultConfig,
  ENV,
  FILE_LIMIT_ENV,
  readConfig,
} from '../../server/config.ts';
import { MCP_DEFAULTS, MCP_ENV } from '../../server/mcp-config.ts';

const MB = 1024 * 1024;

describe('readConfig', () => {
  it('with no variable set gives every default', () => {
    expect(defaultConfig()).toEqual({
      debug: false,
      fileLimits: DEFAULT_FILE_LIMITS,
      backups: DEFAULT_BACKUP_POLICY,
      minFreeBytes: DEFAULT_MIN_FREE_MB * MB,
      logs: {},
      secrets: 'auto',
      google: {},
      mcp: MCP_DEFAULTS,
    });
  });

  it('reads each variable into its typed setting', () => {
    const config = readConfig({
      [ENV.dataDir]: './data',
      [ENV.port]: '9000',
      [ENV.debug]: '1',
      [ENV.apiKey]: ' sp_from_the_client_config ',
      [FILE_LIMIT_ENV.maxFileBytes]: '5',
      [FILE_LIMIT_ENV.maxCells]: '1000',
      SHEETPORT_BACKUPS_KEEP: '0',
      [ENV.minFreeMb]: '4',
      [ENV.deliveryClaimMs]: '1500',
      [ENV.logMaxMb]: '2',
      [ENV.logFiles]: '3',
      [ENV.secrets]: ' file ',
      [ENV.googleApiRoot]: 'http://127.0.0.1:1234',
      [ENV.googleOauthRoot]: 'http://127.0.0.1:5678',
      [ENV.googleMaxAgeMs]: '40',
      [ENV.googleReadsPerMinute]: '3',
      [ENV.googleWritesPerMinute]: '1',
      [ENV.googleClientId]: 'client',
      [ENV.googleClientSecret]: 'secret',
      [ENV.googlePassphrase]: 'a long passphrase',
      [MCP_ENV.maxRows]: '20',
      [MCP_ENV.maxCellChars]: '80',
    });
    expect(config).toEqual({
      dataDir: path.resolve('data'),
      port: 9000,
      debug: true,
      apiKey: 'sp_from_the_client_config',
      fileLimits: { ...DEFAULT_FILE_LIMITS, maxFileBytes: 5 * MB, maxCells: 1000 },
      backups: { ...DEFAULT_BACKUP_POLICY, keep: 0 },
      minFreeBytes: 4 * MB,
      deliveryClaimMs: 1500,
      logs: { maxBytes: 2 * MB, keepFiles: 3 },
      secrets: 'file',
      google: {
        apiRoot: 'http://127.0.0.1:1234',
        oauthRoot: 'http://127.0.0.1:5678',
        maxAgeMs: 40,
        readsPerMinute: 3,
        writesPerMinute: 1,
        clientId: 'client',
        clientSecret: 'secret',
        passphrase: 'a long passphrase',
      },
      mcp: { maxRows: 20, maxCellChars: 80 },
    });
  });

  it('falls back to the defaults for values that are not valid', () => {
    const config = readConfig({
      [ENV.port]: 'eighty',
      [ENV.deliveryClaimMs]: '-5',
      [ENV.logMaxMb]: '0',
      [ENV.logFiles]: 'many',
      [ENV.googleMaxAgeMs]: '-1',
      [ENV.googleReadsPerMinute]: 'lots',
      [FILE_LIMIT_ENV.parseTimeoutMs]: '0',
      [ENV.minFreeMb]: 'plenty',
      [ENV.googleApiRoot]: '',
    });
    expect(config).toEqual(defaultConfig());
  });

  it("reads a delivery's claim time by its name, else by its earlier name", () => {
    expect(readConfig({ [ENV.deliveryClaimMsEarlier]: '2500' }).deliveryClaimMs).toBe(2500);
    expect(
      readConfig({ [ENV.deliveryClaimMs]: '900', [ENV.deliveryClaimMsEarlier]: '2500' }).deliveryClaimMs,
    ).toBe(900);
  });

  it('reads a negative free-space margin as no margin', () => {
    expect(readConfig({ [ENV.minFreeMb]: '-3' }).minFreeBytes).toBe(0);
  });

  it('keeps a SHEETPORT_SECRETS it does not know, for the secrets chooser to refuse where it matters', () => {
    expect(readConfig({ [ENV.secrets]: 'vault' }).secrets).toBe('vault');
  });
});

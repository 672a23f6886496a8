/**
 * Team mode's part of the configuration (config.ts reads it through `teamFrom`, with the variables' names it
 * lists): several instances on one PostgreSQL database, docs/deploy.md.
 */
import { readFileSync } from 'node:fs';

/** Team mode's variables, by the setting each feeds (part of config.ts's ENV). */
export const TEAM_ENV = {
  databaseUrl: 'SHEETPORT_DATABASE_URL',
  secretKey: 'SHEETPORT_SECRET_KEY',
  secretKeyFile: 'SHEETPORT_SECRET_KEY_FILE',
  leaseTtlMs: 'SHEETPORT_LEASE_TTL_MS',
} as const;

/** Team mode (docs/deploy.md): several instances on one PostgreSQL database. */
export interface TeamConfig {
  /** postgres://user:pass@host:port/db */
  databaseUrl: string;
  /** The key sealing secrets in the shared database, as given (SHEETPORT_SECRET_KEY, or the file's content). */
  secretKey?: string;
  /** SHEETPORT_SECRET_KEY_FILE, when the key is read from a file (for messages). */
  secretKeyFile?: string;
  /** How long a spreadsheet's owner keeps it without renewing (default DEFAULT_LEASE_TTL_MS). */
  leaseTtlMs: number;
}

/** A spreadsheet's owner renews its lease three times per TTL; another instance takes over after it lapses. */
export const DEFAULT_LEASE_TTL_MS = 5000;

/** SHEETPORT_DATABASE_URL and its companions; nothing when the URL is unset (SQLite). */
export function teamFrom(env: NodeJS.ProcessEnv): { team?: TeamConfig } {
  const ENV = TEAM_ENV;
  const databaseUrl = env[ENV.databaseUrl]?.trim();
  if (!databaseUrl) return {};
  const keyFile = env[ENV.secretKeyFile]?.trim() || undefined;
  const secretKey = env[ENV.secretKey]?.trim() || (keyFile ? readKeyFile(keyFile) : undefined);
  return {
    team: {
      databaseUrl,
      ...(secretKey ? { secretKey } : {}),
      ...(keyFile ? { secretKeyFile: keyFile } : {}),
      leaseTtlMs: positiveMs(env[ENV.leaseTtlMs]) ?? DEFAULT_LEASE_TTL_MS,
    },
  };
}

/** The key file's content, trimmed; unreadable: undefined (the store refuses to open without a key, saying so). */
function readKeyFile(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

function positiveMs(raw: string | undefined): number | undefined {
  const n = Number(raw);
  return raw && Number.isFinite(n) && n > 0 ? n : undefined;
}

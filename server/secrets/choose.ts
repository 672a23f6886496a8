/**
 * Which secrets provider a data dir uses: chosen once, on first open, and recorded in
 * `<data dir>/secrets-provider.json` (0600). Later opens use the recorded one whatever the environment says, so a
 * start without a desktop session cannot silently switch to an empty file and lose the keychain's secrets: it
 * fails with an error naming the fix instead.
 *
 * First choice: SHEETPORT_SECRETS=file or =keychain forces one (keychain fails when none answers); otherwise the
 * keychain when a real one answers (see probeKeychain), else the file.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ENV, secretsChoice } from '../config.ts';
import { AppError } from '../errors.ts';
import { createPrivateFileOnce, ensurePrivateDir } from '../lib/private-files.ts';
import { FileSecretsProvider } from './file-provider.ts';
import { type KeychainProbe, KeychainSecretsProvider, probeKeychain } from './keychain-provider.ts';
import type { SecretsKind, SecretsProvider } from './provider.ts';

export const SECRETS_ENV = ENV.secrets;
export const SECRETS_RECORD_FILE_NAME = 'secrets-provider.json';

interface SecretsRecord {
  kind: SecretsKind;
  /** Names this data dir's entries in the keychain. */
  id: string;
  chosen_at: string;
}

export interface OpenSecretsOptions {
  /** SHEETPORT_SECRETS as the configuration carries it (config.ts); when unset, read (there) from `env`. */
  choice?: string;
  /** The environment the choice is read from when `choice` is unset; default this process's. */
  env?: NodeJS.ProcessEnv;
  /** Tests replace the keychain probe; the real one talks to the OS. */
  probe?: () => KeychainProbe;
}

export function openSecretsProvider(dataDir: string, options: OpenSecretsOptions = {}): SecretsProvider {
  const forced = forcedKind(options.choice ?? secretsChoice(options.env));
  const recordFile = path.join(dataDir, SECRETS_RECORD_FILE_NAME);
  let record = readRecord(recordFile);
  if (!record) {
    ensurePrivateDir(dataDir);
    const chosen: SecretsRecord = {
      kind: firstChoice(forced, options.probe ?? probeKeychain),
      id: randomBytes(12).toString('hex'),
      chosen_at: new Date().toISOString(),
    };
    // Two processes opening a fresh data dir at once: the first record written wins, the other reads it.
    record = createPrivateFileOnce(recordFile, `${JSON.stringify(chosen, null, 2)}\n`)
      ? chosen
      : readRecord(recordFile);
    if (!record) throw new AppError('internal_error', `Cannot read ${recordFile}.`);
  }
  if (forced && forced !== record.kind) {
    throw new AppError(
      'internal_error',
      `${SECRETS_ENV}=${forced}, but the secrets of ${dataDir} are kept in the ${record.kind === 'keychain' ? 'OS keychain' : 'secrets file'} (chosen when the data dir was set up, recorded in ${recordFile}). Unset ${SECRETS_ENV} to use them.`,
    );
  }
  if (record.kind === 'file') return new FileSecretsProvider(dataDir);
  return new KeychainSecretsProvider(
    record.id,
    `The secrets of ${dataDir} are kept there (recorded in ${recordFile}). Start SheetPort where that keychain is ` +
      'unlocked: a desktop login; on a Linux box without one, `dbus-run-session` with `gnome-keyring-daemon --unlock`.',
  );
}

function forcedKind(choice: string): SecretsKind | null {
  const value = choice.trim();
  if (!value || value === 'auto') return null;
  if (value === 'file' || value === 'keychain') return value;
  throw new AppError(
    'internal_error',
    `${SECRETS_ENV} must be "file", "keychain" or "auto"; got "${value}".`,
  );
}

function firstChoice(forced: SecretsKind | null, probe: () => KeychainProbe): SecretsKind {
  if (forced === 'file') return 'file';
  const answer = probe();
  if (answer.ok) return 'keychain';
  if (forced === 'keychain') {
    throw new AppError(
      'internal_error',
      `${SECRETS_ENV}=keychain, but no OS keychain answers: ${answer.reason}`,
    );
  }
  return 'file';
}

function readRecord(file: string): SecretsRecord | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let parsed: Partial<SecretsRecord> | null = null;
  try {
    parsed = JSON.parse(text) as Partial<SecretsRecord>;
  } catch {
    // reported below
  }
  if ((parsed?.kind !== 'file' && parsed?.kind !== 'keychain') || typeof parsed.id !== 'string') {
    throw new AppError('internal_error', `${file} is not a valid secrets record; restore it from a backup.`);
  }
  return parsed as SecretsRecord;
}

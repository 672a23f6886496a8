/**
 * The keychain backend, over @napi-rs/keyring: macOS Keychain, Windows Credential Manager, and on Linux the
 * Secret Service (GNOME Keyring, KWallet) on the session D-Bus.
 *
 * On Linux the library's default silently falls back to the kernel keyring (keyutils) when no Secret Service
 * answers; that store forgets everything at reboot, which would lose the data key and with it every webhook
 * secret. So every entry is pinned to the Secret Service (`store: 'secret-service'`), which makes the library
 * throw instead of falling back.
 *
 * Entries are named service "SheetPort", account "<data dir id>/<secret name>", so two data dirs on one login
 * never share a secret.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { EntryOptions, Entry as EntryType } from '@napi-rs/keyring';
import { AppError } from '../errors.ts';
import { checkSecretName, type SecretsProvider } from './provider.ts';

export const KEYCHAIN_SERVICE = 'SheetPort';

type EntryClass = typeof EntryType;
let entryClass: EntryClass | undefined;

/** Loaded on first use: a data dir on the file backend never loads the native module. */
function Entry(): EntryClass {
  if (!entryClass) {
    const require = createRequire(import.meta.url);
    entryClass = (require('@napi-rs/keyring') as { Entry: EntryClass }).Entry;
  }
  return entryClass;
}

const ENTRY_OPTIONS: EntryOptions =
  process.platform === 'linux' ? { linux: { store: 'secret-service' } } : {};

function entry(account: string): EntryType {
  const E = Entry();
  return new E(KEYCHAIN_SERVICE, account, ENTRY_OPTIONS);
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class KeychainSecretsProvider implements SecretsProvider {
  readonly kind = 'keychain' as const;
  readonly where = 'the OS keychain';
  readonly #dataDirId: string;
  readonly #unreachableHint: string;

  /** `unreachableHint` finishes the error message when the keychain does not answer (what to do about it). */
  constructor(dataDirId: string, unreachableHint: string) {
    this.#dataDirId = dataDirId;
    this.#unreachableHint = unreachableHint;
  }

  get(name: string): string | null {
    return this.#call(name, (e) => e.getPassword());
  }

  set(name: string, value: string): void {
    this.#call(name, (e) => e.setPassword(value));
  }

  delete(name: string): boolean {
    return this.#call(name, (e) => e.deletePassword());
  }

  #call<T>(name: string, fn: (e: EntryType) => T): T {
    checkSecretName(name);
    try {
      return fn(entry(`${this.#dataDirId}/${name}`));
    } catch (err) {
      throw new AppError(
        'internal_error',
        `The OS keychain did not answer (${reason(err)}). ${this.#unreachableHint}`,
      );
    }
  }
}

export type KeychainProbe = { ok: true } | { ok: false; reason: string };

/**
 * Does a real keychain answer here? Store, read back and delete a throwaway entry. On Linux the entry is pinned
 * to the Secret Service, so this succeeds only when `org.freedesktop.secrets` is owned (or activatable) on the
 * session bus and its collection is unlocked; with no session bus, or a locked keyring and no one to answer the
 * unlock prompt, the library throws at once and we answer "no keychain" (the kernel keyring never counts).
 */
export function probeKeychain(): KeychainProbe {
  const account = `probe/${randomBytes(8).toString('hex')}`;
  const value = randomBytes(16).toString('hex');
  try {
    const e = entry(account);
    e.setPassword(value);
    const back = e.getPassword();
    e.deletePassword();
    return back === value
      ? { ok: true }
      : { ok: false, reason: 'the keychain did not return what was stored' };
  } catch (err) {
    return { ok: false, reason: reason(err) };
  }
}

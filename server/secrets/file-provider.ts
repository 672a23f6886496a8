/**
 * The file backend: `<data dir>/secrets.json`, 0600 from creation, replaced atomically on every change.
 * Used where no real keychain answers (a headless box) or when SHEETPORT_SECRETS=file asks for it.
 * Changes are made under a lock file so two SheetPort processes (a server and a CLI command) cannot lose each
 * other's writes; reads take no lock (the rename makes them see a whole file).
 */
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors.ts';
import { writePrivateFileAtomic } from '../lib/private-files.ts';
import { withLockFile } from './lock-file.ts';
import { checkSecretName, type SecretsProvider } from './provider.ts';

export const SECRETS_FILE_NAME = 'secrets.json';

interface SecretsFile {
  version: 1;
  secrets: Record<string, string>;
}

export class FileSecretsProvider implements SecretsProvider {
  readonly kind = 'file' as const;
  readonly where: string;
  readonly #file: string;

  constructor(dataDir: string) {
    this.#file = path.join(dataDir, SECRETS_FILE_NAME);
    this.where = this.#file;
  }

  get(name: string): string | null {
    checkSecretName(name);
    return this.#read().secrets[name] ?? null;
  }

  set(name: string, value: string): void {
    checkSecretName(name);
    this.#change((secrets) => {
      secrets[name] = value;
      return true;
    });
  }

  delete(name: string): boolean {
    checkSecretName(name);
    return this.#change((secrets) => {
      if (!(name in secrets)) return false;
      delete secrets[name];
      return true;
    });
  }

  #change(edit: (secrets: Record<string, string>) => boolean): boolean {
    return withLockFile(`${this.#file}.lock`, () => {
      const content = this.#read();
      if (!edit(content.secrets)) return false;
      writePrivateFileAtomic(this.#file, `${JSON.stringify(content, null, 2)}\n`);
      return true;
    });
  }

  #read(): SecretsFile {
    let text: string;
    try {
      text = fs.readFileSync(this.#file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, secrets: {} };
      throw err;
    }
    try {
      const parsed = JSON.parse(text) as SecretsFile;
      if (parsed?.version !== 1 || typeof parsed.secrets !== 'object' || parsed.secrets === null) {
        throw new Error('unexpected shape');
      }
      return { version: 1, secrets: { ...parsed.secrets } };
    } catch (err) {
      // Never overwrite a file we cannot read: it may hold the only copy of the data key.
      throw new AppError(
        'internal_error',
        `The secrets file ${this.#file} is not valid (${(err as Error).message}). Restore it from a backup.`,
      );
    }
  }
}

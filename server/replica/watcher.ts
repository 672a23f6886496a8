import { type FSWatcher, watch } from 'node:fs';
import path from 'node:path';
import type { ConnectionRecord, ConnectionStore } from '../store/connections.ts';
import type { Replica } from './replica.ts';

export interface WatcherOptions {
  /** Quiet time after the last file event before the file is looked at (a save is several events). */
  debounceMs?: number;
  /** Fallback poll of every workbook, and how often the connection list is re-read (the CLI may add some). */
  pollMs?: number;
  log?: (message: string, err?: unknown) => void;
}

/**
 * Notices saves made by other programs. Each workbook's folder is watched (Excel and LibreOffice save by
 * writing a temp file and renaming it over the original, which a watch on the file itself would lose); an
 * event for the file name, after a short quiet time, makes the replica check the file: it re-reads it only
 * when its signature changed, and its own writes match already, so they are not seen twice. A slow poll
 * backs the watch up (network drives do not always report events).
 */
export class WorkbookWatcher {
  readonly #replica: Replica;
  readonly #connections: ConnectionStore;
  readonly #debounceMs: number;
  readonly #pollMs: number;
  readonly #log: (message: string, err?: unknown) => void;
  readonly #watched = new Map<string, { watcher: FSWatcher | null; timer: NodeJS.Timeout | null }>();
  #poll: NodeJS.Timeout | null = null;

  constructor(replica: Replica, connections: ConnectionStore, options: WatcherOptions = {}) {
    this.#replica = replica;
    this.#connections = connections;
    this.#debounceMs = options.debounceMs ?? 150;
    this.#pollMs = options.pollMs ?? 2000;
    this.#log = options.log ?? (() => {});
  }

  start(): void {
    this.#sync();
    this.#poll = setInterval(() => this.#sync(true), this.#pollMs);
    this.#poll.unref();
  }

  stop(): void {
    if (this.#poll) clearInterval(this.#poll);
    this.#poll = null;
    for (const entry of this.#watched.values()) {
      entry.watcher?.close();
      if (entry.timer) clearTimeout(entry.timer);
    }
    this.#watched.clear();
  }

  /** Watch new workbook connections, drop removed ones; with `check`, also look at every file now. */
  #sync(check = false): void {
    const current = new Map(
      this.#connections
        .list()
        .filter((c) => c.sourceKind === 'workbook')
        .map((c) => [c.spreadsheetId, c]),
    );
    for (const [id, entry] of this.#watched) {
      if (current.has(id)) continue;
      entry.watcher?.close();
      if (entry.timer) clearTimeout(entry.timer);
      this.#watched.delete(id);
    }
    for (const connection of current.values()) {
      if (!this.#watched.has(connection.spreadsheetId)) this.#watch(connection);
      else if (check) this.#check(connection);
    }
  }

  #watch(connection: ConnectionRecord): void {
    const entry: { watcher: FSWatcher | null; timer: NodeJS.Timeout | null } = { watcher: null, timer: null };
    this.#watched.set(connection.spreadsheetId, entry);
    const name = path.basename(connection.location);
    try {
      entry.watcher = watch(path.dirname(connection.location), { persistent: false }, (_event, file) => {
        if (file !== null && file !== name) return;
        if (entry.timer) clearTimeout(entry.timer);
        entry.timer = setTimeout(() => {
          entry.timer = null;
          this.#check(connection);
        }, this.#debounceMs);
      });
      entry.watcher.on('error', (err) => this.#log(`Watching ${name} failed; polling it instead`, err));
    } catch (err) {
      this.#log(`Cannot watch the folder of ${name}; polling it instead`, err);
    }
    this.#check(connection);
  }

  #check(connection: ConnectionRecord): void {
    this.#replica.get(connection).catch(() => {
      // A missing or unreadable file answers its readers with an error; nothing to do here.
    });
  }
}

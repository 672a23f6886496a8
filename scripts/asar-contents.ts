/**
 * `npm run dist:contents`: packs the tray app the way `npm run dist -- --dir` does (electron-builder with
 * electron-builder.yml: its file list, the production dependencies, asar and asarUnpack) and lists what lands
 * inside app.asar and what is unpacked beside it. Electron's own binary is not needed: a stand-in folder takes
 * the place of Electron's distribution (electronDist), and the fuses, which are flipped in that binary, are left
 * out. So it runs where Electron cannot be downloaded; the real `npm run dist` still needs Electron.
 *
 * Linux only (the stand-in is a Linux Electron folder); on macOS and Windows use `npm run dist -- --dir`.
 * Run after `npm run build:ui` and `tsc -p tsconfig.main.json` (the npm script does both).
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getRawHeader } from '@electron/asar';

export interface PackedApp {
  /** The packed app's resources folder: app.asar and app.asar.unpacked/ in it. */
  resources: string;
  archive: string;
  unpackedDir: string;
}

/** electron-builder's `--dir` build into `outDir`, with a stand-in for Electron's distribution. */
export async function packForInspection(root: string, outDir: string): Promise<PackedApp> {
  const standIn = path.join(outDir, 'electron-stand-in');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(standIn, { recursive: true });
  const electronVersion = (
    JSON.parse(readFileSync(path.join(root, 'node_modules/electron/package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  // What electron-builder copies and renames on Linux: the executable, and the files beside it.
  writeFileSync(path.join(standIn, 'electron'), '#!/bin/sh\necho "stand-in for Electron; nothing to run"\n', {
    mode: 0o755,
  });
  writeFileSync(path.join(standIn, 'version'), electronVersion);
  writeFileSync(path.join(standIn, 'LICENSE'), '');
  const { build, Platform } = await import('electron-builder');
  await build({
    projectDir: root,
    targets: Platform.LINUX.createTarget('dir'),
    publish: 'never',
    config: {
      electronDist: standIn,
      electronVersion,
      electronFuses: null,
      directories: { output: path.join(outDir, 'release') },
    },
  });
  const resources = path.join(outDir, 'release', 'linux-unpacked', 'resources');
  return {
    resources,
    archive: path.join(resources, 'app.asar'),
    unpackedDir: path.join(resources, 'app.asar.unpacked'),
  };
}

export interface ArchiveEntry {
  /** Relative to the app's root, with forward slashes. */
  path: string;
  size: number;
  unpacked: boolean;
}

interface HeaderNode {
  files?: Record<string, HeaderNode>;
  size?: number;
  unpacked?: boolean;
  link?: string;
}

/** Every file the archive's header lists, with whether it lives in app.asar.unpacked/. */
export function archiveEntries(archive: string): ArchiveEntry[] {
  const entries: ArchiveEntry[] = [];
  const walk = (node: HeaderNode, prefix: string): void => {
    for (const [name, child] of Object.entries(node.files ?? {})) {
      const at = prefix ? `${prefix}/${name}` : name;
      if (child.files) walk(child, at);
      else if (!child.link)
        entries.push({ path: at, size: child.size ?? 0, unpacked: child.unpacked === true });
    }
  };
  walk(getRawHeader(archive).header as HeaderNode, '');
  return entries.sort((a, b) => a.path.localeCompare(b.path));
}

/** `dist/server`, `renderer/dist`, `node_modules/<name>` or `node_modules/@scope/name`: a line of the listing. */
export function groupOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'node_modules') return parts.slice(0, parts[1]?.startsWith('@') ? 3 : 2).join('/');
  return parts.length > 2 ? parts.slice(0, 2).join('/') : parts.length === 2 ? (parts[0] ?? file) : file;
}

/** The listing: one line per group, packed first, then unpacked, with file counts and sizes. */
export function listing(entries: ArchiveEntry[]): string {
  const section = (title: string, files: ArchiveEntry[]): string[] => {
    const groups = new Map<string, { files: number; bytes: number }>();
    for (const e of files) {
      const g = groups.get(groupOf(e.path)) ?? { files: 0, bytes: 0 };
      g.files++;
      g.bytes += e.size;
      groups.set(groupOf(e.path), g);
    }
    const total = files.reduce((sum, e) => sum + e.size, 0);
    return [
      `${title} (${files.length} files, ${megabytes(total)})`,
      ...[...groups].map(
        ([name, g]) =>
          `  ${name.padEnd(44)} ${String(g.files).padStart(5)} files ${megabytes(g.bytes).padStart(9)}`,
      ),
    ];
  };
  return [
    ...section(
      'Inside app.asar',
      entries.filter((e) => !e.unpacked),
    ),
    '',
    ...section(
      'Unpacked beside it, app.asar.unpacked/',
      entries.filter((e) => e.unpacked),
    ),
  ].join('\n');
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
}

async function main(): Promise<void> {
  const outDir = path.join(os.tmpdir(), 'sheetport-asar-contents');
  const packed = await packForInspection(process.cwd(), outDir);
  console.log(listing(archiveEntries(packed.archive)));
  console.log(
    `\napp.asar: ${megabytes(statSync(packed.archive).size)}; the packed app is in ${path.dirname(packed.resources)}`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) await main();

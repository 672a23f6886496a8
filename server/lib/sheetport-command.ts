/**
 * How another program (an MCP client such as Claude Desktop) starts this very copy of the `sheetport` CLI: the
 * absolute path of the Node that runs this process and the absolute path of `bin/sheetport.js`, symbolic links
 * resolved (an installed package's `bin/` is reached through a link on PATH, and clients start a command without
 * a shell or the user's PATH). Under the tray app (Electron), its own binary runs the CLI as Node.
 */
import { realpathSync } from 'node:fs';
import { findPackageFile } from './package-file.ts';

/** A program and its first arguments, with the environment it needs besides the caller's additions. */
export interface CommandLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface LaunchFacts {
  /** The running executable (`process.execPath`). */
  execPath: string;
  /** `process.versions`: `electron` is set under the tray app. */
  versions: NodeJS.ProcessVersions;
  /** `bin/sheetport.js` of this copy, or null when it is not shipped (the packed tray app). */
  bin: string | null;
}

/** The facts of this process. */
export function thisProcess(): LaunchFacts {
  const bin = findPackageFile('bin/sheetport.js');
  return { execPath: process.execPath, versions: process.versions, bin: bin ? realpathSync(bin) : null };
}

/**
 * The command that runs `sheetport <args...>` with this copy of SheetPort, or null when this copy has no CLI to
 * run (the packed tray app ships no `bin/`: its users install the CLI, or use the Streamable HTTP form).
 */
export function sheetportLaunch(args: string[], facts: LaunchFacts = thisProcess()): CommandLaunch | null {
  if (!facts.bin) return null;
  // Electron's binary is Node itself only when asked to be (a development run; a packed app turns this off).
  const env: Record<string, string> = facts.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {};
  return { command: facts.execPath, args: [facts.bin, ...args], env };
}

/**
 * The `sheetport` CLI as a real child process: `node bin/sheetport.js ...args`, the program a user runs.
 *
 * One environment rule for every suite: the test process's environment without `SHEETPORT_DATA_DIR` and
 * `SHEETPORT_DEBUG` (a developer's shell must not steer a run, nor add stack traces to its stderr), plus the
 * additions a test names; an addition whose value is `undefined` removes that variable.
 *
 * `runCli` / `runCliSync` run a command to its end; `startCli` starts a long-running one (`serve`, `demo`),
 * waits for its first stdout line (the JSON line of `--json`, or the line a test names) and stops it on
 * `stop()`.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const SHEETPORT_BIN = fileURLToPath(new URL('../../bin/sheetport.js', import.meta.url));

/** CLI output read as loosely as `JSON.parse` reads it, for suites that walk it freely. */
// biome-ignore lint/suspicious/noExplicitAny: the same type JSON.parse returns
export type AnyJson = any;

export interface CliOptions {
  /** Appended to the arguments as `--data-dir <dir>`. */
  dataDir?: string;
  /** Added to the environment; a value of `undefined` removes the variable. */
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed. */
  input?: string;
  cwd?: string;
  /** Killed (SIGTERM) after this long; 20 s unless given. */
  timeoutMs?: number;
  /** Called once with the first stdout line that is a bare http:// URL (a login's consent page). */
  onUrl?: (url: string) => Promise<void> | void;
  /** A program the CLI runs under, e.g. `['setpriv', '--reuid=65534', ...]`: it is given `node bin/sheetport.js ...`. */
  wrap?: string[];
}

export interface CliRun {
  /** The exit code; null when a signal ended the process (the timeout, for one). */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a CLI run gets: see the top of this file. */
export function cliEnv(additions: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.SHEETPORT_DATA_DIR;
  delete env.SHEETPORT_DEBUG;
  // A developer's team settings must not send a suite's CLI to their database.
  delete env.SHEETPORT_DATABASE_URL;
  delete env.SHEETPORT_SECRET_KEY;
  delete env.SHEETPORT_SECRET_KEY_FILE;
  for (const [name, value] of Object.entries(additions)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** The program and its arguments for `args` under `options`. */
function command(args: string[], options: CliOptions): [string, string[]] {
  const argv = [SHEETPORT_BIN, ...args, ...(options.dataDir ? ['--data-dir', options.dataDir] : [])];
  const [program, ...wrapArgs] = options.wrap ?? [];
  return program ? [program, [...wrapArgs, process.execPath, ...argv]] : [process.execPath, argv];
}

/** Run `sheetport ...args` to its end. */
export async function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  const [program, argv] = command(args, options);
  const child = spawn(program, argv, {
    cwd: options.cwd,
    env: cliEnv(options.env),
    timeout: options.timeoutMs ?? 20_000,
  });
  let stdout = '';
  let stderr = '';
  let urlSeen = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    const url = /^(http:\/\/\S+)$/m.exec(stdout)?.[1];
    if (url && options.onUrl && !urlSeen) {
      urlSeen = true;
      void options.onUrl(url);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.end(options.input ?? '');
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/** Run `sheetport ...args` to its end, blocking (for suites whose checks are synchronous). */
export function runCliSync(args: string[], options: CliOptions = {}): CliRun {
  const [program, argv] = command(args, options);
  const r = spawnSync(program, argv, {
    cwd: options.cwd,
    env: cliEnv(options.env),
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 20_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Throws, with the command and its stderr, unless the run exited 0 with nothing on stderr. */
export function succeeded(args: string[], run: CliRun): CliRun {
  if (run.code !== 0 || run.stderr !== '')
    throw new Error(`sheetport ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return run;
}

/** `sheetport ...args --json`: exits 0 with nothing on stderr; its stdout parsed. */
export async function cliJson<T = unknown>(args: string[], options: CliOptions = {}): Promise<T> {
  const full = [...args, '--json'];
  return JSON.parse(succeeded(full, await runCli(full, options)).stdout) as T;
}

/**
 * The error of a command that fails the way every command fails: exit 1, nothing on stdout, exactly one line
 * on stderr and no stack trace. With `--json` (the default) that line is the error envelope; without, it is
 * `error: <message>` (and the code is '').
 */
export function cliError(args: string[], run: CliRun, json = true): { code: string; message: string } {
  const lines = run.stderr.split('\n').filter(Boolean);
  const what = `sheetport ${args.join(' ')} (exit ${run.code}, stdout ${JSON.stringify(run.stdout)})`;
  if (run.code !== 1 || run.stdout !== '' || lines.length !== 1 || /^\s+at .*:\d+:\d+/m.test(run.stderr))
    throw new Error(`${what} did not fail with one line on stderr:\n${run.stderr}`);
  if (!json) {
    if (!lines[0]!.startsWith('error: ')) throw new Error(`${what}: stderr is not "error: ...": ${lines[0]}`);
    return { code: '', message: lines[0]!.slice('error: '.length) };
  }
  return (JSON.parse(lines[0]!) as { error: { code: string; message: string } }).error;
}

/** `sheetport ...args --json` that must fail: its error envelope (see `cliError`). */
export async function cliFails(
  args: string[],
  options: CliOptions = {},
): Promise<{ code: string; message: string }> {
  const full = [...args, '--json'];
  return cliError(full, await runCli(full, options));
}

export interface RunningCli {
  child: ChildProcess;
  /** The first stdout line (or the one `until` waited for). */
  line: string;
  /** Everything on stdout and stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Send `signal` (SIGTERM unless given) if it still runs, and wait for its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const running = new Set<ChildProcess>();
// A suite that fails half way leaves no server behind.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Start a long-running `sheetport ...args` and wait until its stdout shows a whole line (or, with `until`,
 * until its stdout so far matches `until`). Throws with its stderr if it exits first. Its stderr is shown in the
 * test's output as it comes, unless `quiet`.
 */
export async function startCli(
  args: string[],
  options: CliOptions & { until?: RegExp; quiet?: boolean } = {},
): Promise<RunningCli> {
  const [program, argv] = command(args, options);
  const child = spawn(program, argv, {
    cwd: options.cwd,
    env: cliEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  const exited = once(child, 'exit').then(([code]) => {
    running.delete(child);
    return code as number | null;
  });
  child.stdin.end(options.input ?? '');
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    if (!options.quiet) process.stderr.write(chunk);
  });
  const shown = new Promise<string>((resolve) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (options.until ? options.until.test(out) : out.includes('\n')) resolve(out.split('\n')[0]!);
    });
  });
  const line = await Promise.race([
    shown,
    exited.then((code) => {
      throw new Error(`sheetport ${args.join(' ')} exited ${code} before it started:\n${err}`);
    }),
  ]);
  return {
    child,
    line,
    stdout: () => out,
    stderr: () => err,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export type RunningServe = RunningCli & { url: string };

/** `sheetport serve --port 0 --json` on `dataDir`: its URL once it listens. */
export async function startServe(
  dataDir: string,
  options: Omit<CliOptions, 'dataDir'> & { quiet?: boolean } = {},
): Promise<RunningServe> {
  const server = await startCli(['serve', '--port', '0', '--json'], { ...options, dataDir });
  return { ...server, url: (JSON.parse(server.line) as { url: string }).url };
}

/**
 * A line the CLI printed (or the README shows), pasted the way a user does: into bash, from an unrelated
 * directory, with the CLI's environment (see the top of this file) plus `env`. curl fails on an HTTP error status
 * and prints the body it got, so a refused request fails the script. Resolves to stdout; rejects as execFile does
 * (the error carries stdout and stderr).
 */
export async function pasteIntoBash(script: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const { stdout } = await promisify(execFile)(
    'bash',
    ['-euo', 'pipefail', '-c', `curl() { command curl -sS --fail-with-body "$@"; }\n${script}`],
    { cwd: os.tmpdir(), env: cliEnv(env) },
  );
  return stdout;
}

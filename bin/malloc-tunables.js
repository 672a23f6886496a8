// glibc's allocator settings SheetPort runs with on Linux, in one place: `bin/sheetport.js` starts itself again
// with them, and the tests run under them (vitest.config.ts), so what they measure is what the command does.

/**
 * Two arenas instead of one per thread that allocated, and buffers of 1 MB or more mapped on their own (given
 * back when freed): by default a freed buffer under a threshold that grows up to 32 MB stays in its arena,
 * resident (at a million rows, about 60 MB the service no longer uses: docs/performance.md).
 */
export const MALLOC_TUNABLES = 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=1048576';

/**
 * The `GLIBC_TUNABLES` a process started with `env` should have, or undefined when it needs none: not Linux, or
 * a malloc setting of the user's own (`MALLOC_ARENA_MAX`, `MALLOC_MMAP_THRESHOLD_`, any `glibc.malloc.` tunable),
 * which is kept as it is. Other tunables are kept, these added after them.
 */
export function mallocTunablesFor(env, platform = process.platform) {
  if (platform !== 'linux') return undefined;
  const tunables = env.GLIBC_TUNABLES ?? '';
  if (env.MALLOC_ARENA_MAX || env.MALLOC_MMAP_THRESHOLD_ || tunables.includes('glibc.malloc.'))
    return undefined;
  return tunables ? `${tunables}:${MALLOC_TUNABLES}` : MALLOC_TUNABLES;
}

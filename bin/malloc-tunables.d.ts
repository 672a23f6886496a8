// Types of bin/malloc-tunables.js, for the tests and vitest.config.ts that import it.
export declare const MALLOC_TUNABLES: string;
export declare function mallocTunablesFor(
  env: Record<string, string | undefined>,
  platform?: NodeJS.Platform,
): string | undefined;

import { describe, expect, it } from 'vitest';
import { checkForUpdatesOnStart } from '../../main/updates.ts';

describe('update check on start', () => {
  it('a run from a checkout never loads the updater', async () => {
    let loaded = false;
    const outcome = await checkForUpdatesOnStart(
      false,
      async () => {
        loaded = true;
        return { checkForUpdatesAndNotify: async () => null };
      },
      () => {},
    );
    expect(outcome).toBe('skipped');
    expect(loaded).toBe(false);
  });

  it('a packaged app checks once, and a failed check is logged, not thrown', async () => {
    let checks = 0;
    expect(
      await checkForUpdatesOnStart(
        true,
        async () => ({ checkForUpdatesAndNotify: async () => checks++ }),
        () => {},
      ),
    ).toBe('checked');
    expect(checks).toBe(1);
    const logged: string[] = [];
    const outcome = await checkForUpdatesOnStart(
      true,
      async () => ({
        checkForUpdatesAndNotify: async () => {
          throw new Error('net::ERR_INTERNET_DISCONNECTED');
        },
      }),
      (message) => logged.push(message),
    );
    expect(outcome).toBe('failed');
    expect(logged).toEqual(['Update check failed']);
  });
});

import { describe, expect, it } from 'vitest';
import { excerpt, redactSecrets } from '../../server/lib/redact-secrets.ts';

const KEY = `sp_${'A1b2-C3d4_'.repeat(4)}xyz`;

describe('excerpt', () => {
  it('leaves a short text as it is', () => {
    expect(excerpt('Sheet "People" not found', 100)).toBe('Sheet "People" not found');
  });

  it('cuts a long text at a delimiter, never inside a run that goes on', () => {
    expect(excerpt(`Sheet "${'A'.repeat(5_000)}" not found`, 100)).toBe('Sheet "…');
    expect(excerpt(`a b c ${'word '.repeat(100)}`, 20)).toBe('a b c word word word…');
    expect(excerpt(`a b c ${'word '.repeat(100)}`, 18)).toBe('a b c word word …');
  });

  it('never leaves the head of a secret too short to be redacted', () => {
    for (let cut = 10; cut < 60; cut++) {
      const text = `key is ${KEY} and ${KEY.replace('_', '%5F')} again`;
      const shown = redactSecrets(excerpt(text, cut));
      expect(shown).not.toMatch(/sp(_|%5F)/);
    }
  });
});

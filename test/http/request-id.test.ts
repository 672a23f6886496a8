import { describe, expect, it } from 'vitest';
import { newRequestId } from '../../server/http/request-id.ts';

describe('our own request ids (drawn from a pool of random bytes)', () => {
  it('are twelve base64url characters after req_, and none repeats across many pool refills', () => {
    const ids = Array.from({ length: 5_000 }, newRequestId);
    for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9_-]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

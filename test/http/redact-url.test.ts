import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../server/http/redact-url.ts';

const KEY = `sp_${'A1b2-C3d4_'.repeat(4)}xyz`;

describe('redactUrl', () => {
  it('keeps paths and ordinary parameters as sent', () => {
    expect(redactUrl('/api/spreadsheets/uk_123/Orders?limit=3&sort=-Total&fields=Order%20ID')).toBe(
      '/api/spreadsheets/uk_123/Orders?limit=3&sort=-Total&fields=Order%20ID',
    );
    expect(redactUrl('/v1/spreadsheets')).toBe('/v1/spreadsheets');
  });

  it('hides the values of secret-looking parameters, whatever their spelling', () => {
    expect(redactUrl('/x?key=1&api_key=2&apiKey=3&access_token=4&Token=5&password=6&sig=7&limit=8')).toBe(
      '/x?key=[redacted]&api_key=[redacted]&apiKey=[redacted]&access_token=[redacted]&Token=[redacted]&password=[redacted]&sig=[redacted]&limit=8',
    );
    expect(redactUrl('/x?api%5Fkey=secret')).toBe('/x?api%5Fkey=[redacted]');
  });

  it('hides anything shaped like a SheetPort key wherever it is', () => {
    expect(redactUrl(`/x?search=Notes:${KEY}`)).toBe('/x?search=Notes:[redacted]');
    expect(redactUrl(`/x?search=Notes%3A${KEY}`)).toBe('/x?search=Notes%3A[redacted]');
    expect(redactUrl(`/api/${KEY}/Orders`)).toBe('/api/[redacted]/Orders');
  });

  it('bounds the length', () => {
    expect(redactUrl(`/x?q=${'a'.repeat(5000)}`).length).toBeLessThan(2100);
  });
});

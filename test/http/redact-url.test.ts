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

  it('sees through percent-encoding, once or twice, in queries and path segments', () => {
    const encoded = KEY.replace('_', '%5F');
    expect(redactUrl(`/x?q=${encoded}&limit=3`)).toBe('/x?q=[redacted]&limit=3');
    expect(redactUrl(`/x?q=${KEY.replace('_', '%255F')}`)).toBe('/x?q=[redacted]');
    expect(redactUrl(`/x?${encoded}`)).toBe('/x?[redacted]');
    expect(redactUrl(`/v1/webhooks/${encoded}/deliveries`)).toBe('/v1/webhooks/[redacted]/deliveries');
    // Ordinary escapes stay as sent.
    expect(redactUrl('/api/u/Caf%C3%A9?fields=Order%20ID&q=100%25')).toBe(
      '/api/u/Caf%C3%A9?fields=Order%20ID&q=100%25',
    );
  });

  it('hides one-use codes and admin tokens too', () => {
    expect(redactUrl('/ui/?code=Zx81-abcDEF_0123456789')).toBe('/ui/?code=[redacted]');
    expect(redactUrl(`/x?t=spa_${'Q'.repeat(43)}`)).toBe('/x?t=[redacted]');
  });

  it('bounds the length', () => {
    expect(redactUrl(`/x?q=${'a'.repeat(5000)}`).length).toBeLessThan(2100);
  });
});

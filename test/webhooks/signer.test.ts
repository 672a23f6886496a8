import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSecret, standardWebhookKey } from '../../server/webhooks/secret.ts';
import { signedHeaders, signHex, standardWebhookSignature, userAgent } from '../../server/webhooks/signer.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const now = (): number => Math.floor(Date.now() / 1000);

describe('generateSecret', () => {
  it('is whsec_ + base64 of 32 random bytes, different every time', () => {
    const a = generateSecret();
    const b = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(standardWebhookKey(a)).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});

describe('signHex (X-Service-Signature)', () => {
  it('is the lowercase hex HMAC-SHA256 of the exact bytes, keyed with the whole secret as UTF-8', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"webhook_id":"wh_1","event":"row.updated","note":"café ✓"}';
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(Buffer.from(body, 'utf8'))
      .digest('hex');
    expect(signHex(secret, body)).toBe(expected);
    expect(signHex(secret, Buffer.from(body, 'utf8'))).toBe(expected);
    expect(signHex(secret, body)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('matches the GitHub published vector (same construction: hex HMAC of the raw body)', () => {
    expect(signHex("It's a Secret to Everybody", 'Hello, World!')).toBe(
      '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
  });

  it('signs bytes, not re-serialised JSON: one extra space changes it', () => {
    const secret = generateSecret();
    expect(signHex(secret, '{"a":1}')).not.toBe(signHex(secret, '{"a": 1}'));
  });
});

describe('standardWebhookSignature (webhook-signature)', () => {
  it('matches the Standard Webhooks reference test vector', () => {
    expect(
      standardWebhookSignature(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('is base64 HMAC-SHA256 over id.timestamp.body keyed with the DECODED secret bytes', () => {
    const secret = generateSecret();
    const body = Buffer.from('{"x":"ü"}', 'utf8');
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key)
      .update(`dlv_1.1700000000.${body.toString('utf8')}`)
      .digest('base64');
    expect(standardWebhookSignature(secret, 'dlv_1', 1700000000, body)).toBe(`v1,${expected}`);
  });

  it('refuses an id containing the "." separator and a non-integer timestamp', () => {
    const secret = generateSecret();
    expect(() => standardWebhookSignature(secret, 'a.b', 1, 'x')).toThrow(/message id/);
    expect(() => standardWebhookSignature(secret, 'a', 1.5, 'x')).toThrow(/timestamp/);
  });
});

describe('signedHeaders', () => {
  const secret = generateSecret();
  const body = Buffer.from(
    JSON.stringify({
      webhook_id: 'wh_abc',
      event: 'row.inserted',
      spreadsheet_id: 'ss',
      sheet_name: 'Sheet1',
      timestamp: '2026-01-02T03:04:05.678Z',
      changed_rows: [{ row_index: 2, before: null, after: { Name: 'Zoë' } }],
    }),
    'utf8',
  );

  it('carries every header of CONTRACT 6', () => {
    const ts = now();
    const h = signedHeaders({
      secret,
      deliveryId: 'dlv_123',
      event: 'row.inserted',
      timestampSeconds: ts,
      body,
    });
    expect(h).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': `SheetPort-Webhooks/${pkg.version}`,
      'X-Service-Event': 'row.inserted',
      'X-Service-Delivery': 'dlv_123',
      'X-Service-Signature': signHex(secret, body),
      'webhook-id': 'dlv_123',
      'webhook-timestamp': String(ts),
      'webhook-signature': standardWebhookSignature(secret, 'dlv_123', ts, body),
    });
    expect(userAgent()).toBe(`SheetPort-Webhooks/${pkg.version}`);
  });

  it('keeps the id across attempts while the timestamp and webhook-signature change', () => {
    const first = signedHeaders({
      secret,
      deliveryId: 'dlv_9',
      event: 'row.inserted',
      timestampSeconds: 100,
      body,
    });
    const retry = signedHeaders({
      secret,
      deliveryId: 'dlv_9',
      event: 'row.inserted',
      timestampSeconds: 130,
      body,
    });
    expect(retry['webhook-id']).toBe(first['webhook-id']);
    expect(retry['X-Service-Delivery']).toBe(first['X-Service-Delivery']);
    expect(retry['X-Service-Signature']).toBe(first['X-Service-Signature']);
    expect(retry['webhook-signature']).not.toBe(first['webhook-signature']);
  });

  it('verifies with the standardwebhooks package', () => {
    const h = signedHeaders({
      secret,
      deliveryId: 'dlv_ok',
      event: 'row.inserted',
      timestampSeconds: now(),
      body,
    });
    const parsed = new Webhook(secret).verify(body.toString('utf8'), h) as { event: string };
    expect(parsed.event).toBe('row.inserted');
    // The package also accepts a Buffer payload and lower-cased header names (as a receiver sees them).
    const lower = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
    expect(() => new Webhook(secret).verify(body, lower)).not.toThrow();
  });

  it('fails standardwebhooks verification for a tampered body, a wrong secret or a stale timestamp', () => {
    const h = signedHeaders({
      secret,
      deliveryId: 'dlv_bad',
      event: 'row.inserted',
      timestampSeconds: now(),
      body,
    });
    const tampered = body.toString('utf8').replace('Zoë', 'Zoe');
    expect(() => new Webhook(secret).verify(tampered, h)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(generateSecret()).verify(body, h)).toThrow(WebhookVerificationError);
    const stale = signedHeaders({
      secret,
      deliveryId: 'dlv_old',
      event: 'row.inserted',
      timestampSeconds: now() - 600,
      body,
    });
    expect(() => new Webhook(secret).verify(body, stale)).toThrow(/too old/);
  });
});

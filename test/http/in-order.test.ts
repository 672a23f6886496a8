/**
 * inOrder (http/in-order.ts) runs what every request meets first as one Express step: over real HTTP, its steps
 * run in order, and a step's failure (passed on, thrown, or a rejected promise) reaches the error handlers as it
 * would from a layer of its own, with no later step run; a step that answers ends the request there.
 */
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inOrder } from '../../server/http/in-order.ts';

let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const app = express();
  const mark =
    (name: string): RequestHandler =>
    (_req, res, next) => {
      res.append('X-Steps', name);
      next();
    };
  const fail: Record<string, RequestHandler> = {
    '/passed': (_req, _res, next) => next(new Error('passed on')),
    '/thrown': () => {
      throw new Error('thrown');
    },
    '/rejected': async () => {
      await Promise.resolve();
      throw new Error('rejected');
    },
    '/answered': (_req, res) => {
      res.status(204).end();
    },
  };
  const failing: RequestHandler = (req, res, next) => {
    const step = fail[req.path];
    return step ? step(req, res, next) : next();
  };
  app.use(inOrder([mark('one'), mark('two'), failing, mark('three')]));
  app.get('/{*rest}', (_req, res) => {
    res.json({ routed: true });
  });
  const onError: ErrorRequestHandler = (err: Error, _req, res, _next) => {
    res.status(500).json({ error: err.message });
  };
  app.use(onError);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(() => close());

describe('inOrder', () => {
  it('runs every step in order, then the routes', async () => {
    const res = await fetch(`${url}/fine`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ routed: true });
    expect(res.headers.get('x-steps')).toBe('one, two, three');
  });

  it.each([
    ['/passed', 'passed on'],
    ['/thrown', 'thrown'],
    ['/rejected', 'rejected'],
  ])('hands %s to the error handlers, running no later step', async (route, message) => {
    const res = await fetch(url + route);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: message });
    expect(res.headers.get('x-steps')).toBe('one, two');
  });

  it('ends the request where a step answers', async () => {
    const res = await fetch(`${url}/answered`);
    expect(res.status).toBe(204);
    expect(res.headers.get('x-steps')).toBe('one, two');
  });
});

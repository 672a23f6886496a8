/**
 * The operations docs/openapi.json documents, as the fuzzer reads them: method, path template, parameters with
 * their schemas, the request body's schema, and the documented answers. Plain Node (no vitest), so the long run
 * (`npm run fuzz`) and the suite share it.
 */
import { readFileSync } from 'node:fs';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked by key; shapes are checked where used
export type Schema = any;

export const DOC: Schema = JSON.parse(
  readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'),
);

/** The node, or what its `$ref` (and theirs) points at. */
export function deref(node: Schema): Schema {
  let at = node;
  for (let hops = 0; at && typeof at.$ref === 'string'; hops++) {
    if (hops > 32) throw new Error(`$ref loop at ${at.$ref}`);
    at = at.$ref
      .slice(2)
      .split('/')
      .reduce((n: Schema, k: string) => n?.[k.replaceAll('~1', '/').replaceAll('~0', '~')], DOC);
  }
  return at;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  template: string;
  operationId: string;
  parameters: Parameter[];
  /** The JSON body's schema; null when the operation takes no body. */
  body: Schema | null;
  bodyRequired: boolean;
  /** Documented statuses to their response objects (dereferenced). */
  responses: Record<string, Schema>;
  /** `admin` for the admin token, `key` for an API key, `none` for public routes. */
  auth: 'admin' | 'key' | 'none';
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function authOf(op: Schema): Operation['auth'] {
  const security: Schema[] = op.security ?? DOC.security ?? [];
  if (security.some((s) => 'adminToken' in s)) return 'admin';
  if (security.some((s) => 'bearerAuth' in s)) return 'key';
  return 'none';
}

function operationsOf(template: string, item: Schema): Operation[] {
  const common: Schema[] = item.parameters ?? [];
  return METHODS.filter((m) => item[m]).map((m) => {
    const op = item[m];
    const parameters = [...common, ...(op.parameters ?? [])].map(deref).map((p: Schema) => ({
      name: p.name,
      in: p.in,
      required: Boolean(p.required),
      schema: deref(p.schema ?? {}),
    }));
    const body = op.requestBody ? deref(op.requestBody) : null;
    return {
      method: m.toUpperCase() as Operation['method'],
      template,
      operationId: op.operationId,
      parameters,
      body: body ? deref(body.content?.['application/json']?.schema ?? {}) : null,
      bodyRequired: Boolean(body?.required),
      responses: Object.fromEntries(
        Object.entries(op.responses as Record<string, Schema>).map(([s, r]) => [s, deref(r)]),
      ),
      auth: authOf(op),
    };
  });
}

export const OPERATIONS: readonly Operation[] = Object.entries(DOC.paths as Record<string, Schema>).flatMap(
  ([template, item]) => operationsOf(template, deref(item)),
);

/** Text with any lone surrogate made U+FFFD, as a client's UTF-8 encoder sends it. */
const wellFormed = (text: string) => Buffer.from(text, 'utf8').toString('utf8');

/** The path with each `{param}` replaced by its value, percent-encoded as one segment. */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    encodeURIComponent(wellFormed(values[name] ?? '')),
  );
}

/** What a request reaches by Express's routing: a documented operation, another method's path, or no route. */
export type Reached = { op: Operation } | { otherMethod: string } | { noRoute: true };

function segmentsMatch(template: string[], actual: string[]): boolean {
  return (
    template.length === actual.length &&
    template.every((part, i) =>
      part.startsWith('{') && part.endsWith('}') ? actual[i] !== '' : part === actual[i],
    )
  );
}

const literalLength = (template: string) => template.replace(/\{[^}]+\}/g, '').length;

/** The operation a request reaches: its path matched against the templates (a trailing slash ignored, literal
 * segments before parameters), as the router matches it. */
export function reached(method: string, pathAndQuery: string): Reached {
  const path = pathAndQuery.split('?')[0]!;
  const actual = (path.length > 1 ? path.replace(/\/$/, '') : path).split('/');
  const templates = [...new Set(OPERATIONS.map((op) => op.template))]
    .filter((t) => segmentsMatch(t.split('/'), actual))
    .sort((a, b) => literalLength(b) - literalLength(a));
  if (templates.length === 0) return { noRoute: true };
  const op = OPERATIONS.find((o) => o.template === templates[0] && o.method === method);
  return op ? { op } : { otherMethod: templates[0]! };
}

/**
 * docs/openapi.json as the tests read it: references followed, and what an operation documents for a refusal
 * (the error codes of a status), so a test can hold an answer to the document.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked by key and checked by assertions
export type DocNode = any;

export const OPENAPI: DocNode = JSON.parse(
  readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'),
);

/** The node, or what its `$ref` (and theirs) points at. */
export function deref(node: DocNode): DocNode {
  let at = node;
  while (at?.$ref)
    at = at.$ref
      .slice(2)
      .split('/')
      .reduce((n: DocNode, k: string) => n?.[k], OPENAPI);
  return at;
}

/** The error codes the document allows for this operation and status (none when it documents no such answer). */
export function documentedCodes(method: string, template: string, status: number): string[] {
  const response = deref(deref(OPENAPI.paths[template]?.[method])?.responses?.[String(status)]);
  if (!response) return [];
  const narrowed = deref(response.content['application/json'].schema).allOf.find((s: DocNode) => !s.$ref);
  return narrowed.properties.error.properties.code.enum;
}

/** The refusal's status and code are documented for the operation, and each member of its error is declared. */
export function expectDocumentedError(
  error: Record<string, unknown>,
  status: number,
  method: string,
  template: string,
): void {
  expect(documentedCodes(method, template, status), `${method} ${template} ${status}`).toContain(error.code);
  for (const member of Object.keys(error)) {
    expect(OPENAPI.components.schemas.ErrorDetail.properties, member).toHaveProperty(member);
  }
}

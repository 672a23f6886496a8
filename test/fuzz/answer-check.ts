/**
 * Holds one real answer to docs/openapi.json: the status is documented for the operation, the content type is
 * one the document lists, a JSON body validates against the documented schema (JSON Schema 2020-12, through
 * Ajv) and carries no member the schema does not declare, and the answer leaks no stack trace or file path.
 * Returns readable problems; none means the document tells the truth about this answer.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { undeclaredMembers } from './closed-objects.ts';
import { DOC, deref, type Operation, type Reached, type Schema } from './operations.ts';

const DOC_ID = 'https://sheetport.invalid/openapi.json';

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats.default(ajv);
ajv.addSchema({ ...DOC, $id: DOC_ID });

const validators = new Map<string, ValidateFunction>();

/** A JSON pointer into the document, escaped (`~1` for `/`). */
const pointer = (parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function validatorFor(op: Operation, status: string, mediaType: string): ValidateFunction {
  const at = pointer(['paths', op.template, op.method.toLowerCase(), 'responses', status]);
  const cacheKey = `${at} ${mediaType}`;
  let validate = validators.get(cacheKey);
  if (!validate) {
    const response = deref(DOC.paths[op.template][op.method.toLowerCase()].responses[status]);
    // The response may be a $ref to components/responses: validate through the same pointer Ajv resolves.
    const schema = response.content[mediaType].schema;
    validate = ajv.compile({ $id: `${DOC_ID}/answer/${validators.size}`, ...resolvedRefs(schema) });
    validators.set(cacheKey, validate);
  }
  return validate;
}

/** A schema whose local `$ref`s point into the registered document by its id. */
function resolvedRefs(schema: Schema): Schema {
  if (Array.isArray(schema)) return schema.map(resolvedRefs);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `${DOC_ID}${v}` : resolvedRefs(v),
    ]),
  );
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  ms: number;
}

/** Statuses the service may answer with when something outside it fails; any other 5xx is a defect. */
const SERVER_SIDE_ALLOWED = new Set([502, 503, 507]);
const STACK_TRACE = /\n\s+at [^\n]{1,300}:\d+:\d+\)?/;

function mediaTypeOf(answer: Answer): string | null {
  const type = answer.headers['content-type'];
  if (typeof type !== 'string') return null;
  return type.split(';')[0]!.trim().toLowerCase();
}

function bodyProblems(op: Operation, status: string, answer: Answer, documented: Schema): string[] {
  const content = documented.content as Record<string, Schema> | undefined;
  const mediaType = mediaTypeOf(answer);
  if (!content)
    return answer.body.length > 0 && answer.status !== 304 ? ['a body where none is documented'] : [];
  if (mediaType === null || !(mediaType in content))
    return [`content type ${mediaType} not documented (${Object.keys(content).join(', ')})`];
  if (mediaType !== 'application/json') return [];
  let json: unknown;
  try {
    json = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return ['an application/json body that is not JSON'];
  }
  const validate = validatorFor(op, status, mediaType);
  const problems = validate(json)
    ? []
    : (validate.errors ?? []).slice(0, 5).map((e) => `body${e.instancePath} ${e.message}`);
  return [...problems, ...undeclaredMembers(json, content[mediaType].schema, 'body')];
}

const envelope = ajv.compile({ $ref: `${DOC_ID}#/components/schemas/Error` });

/** An answer to a path no route has (404), or to a method the path does not take (405, with `Allow`). */
function unroutedProblems(reach: Exclude<Reached, { op: Operation }>, answer: Answer): string[] {
  const expected = 'noRoute' in reach ? 404 : 405;
  // A request refused before routing (too long, or not HTTP) is refused the same on every path.
  const beforeRouting = [400, 414, 431].includes(answer.status);
  const problems =
    answer.status === expected || beforeRouting ? [] : [`answered ${answer.status}, not ${expected}`];
  if (answer.status === 405 && !answer.headers.allow) problems.push('a 405 without Allow');
  let json: unknown = null;
  try {
    json = JSON.parse(answer.body.toString('utf8'));
  } catch {}
  if (!envelope(json)) problems.push(`not the error envelope: ${answer.body.toString('utf8').slice(0, 100)}`);
  return problems;
}

/** What is wrong with this answer, by the document; empty when nothing is. */
export function answerProblems(reach: Reached, answer: Answer, leaks: readonly string[]): string[] {
  const problems: string[] = [];
  if (answer.status >= 500 && !SERVER_SIDE_ALLOWED.has(answer.status))
    problems.push(`answered ${answer.status}`);
  if (answer.status >= 400) {
    const text = answer.body.toString('utf8');
    if (STACK_TRACE.test(text)) problems.push('a stack trace in the answer');
    for (const leak of leaks) if (text.includes(leak)) problems.push(`the answer names the path ${leak}`);
  }
  if (!('op' in reach)) return [...problems, ...unroutedProblems(reach, answer)];
  const status = String(answer.status);
  const documented = reach.op.responses[status];
  if (!documented) return [...problems, `status ${status} not documented`];
  return [...problems, ...bodyProblems(reach.op, status, answer, documented)];
}

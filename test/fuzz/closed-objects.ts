/**
 * Members an answer carries that its schema does not declare. JSON Schema leaves an object open unless it says
 * `additionalProperties: false`, and `allOf` makes that keyword unusable across parts; a client generated from
 * the document, though, knows only the declared members. So here an object schema that declares `properties`
 * (directly or through `allOf`, `oneOf`, `anyOf` and `$ref`) and no `additionalProperties` is closed.
 */
import { deref, type Schema } from './operations.ts';

interface Shape {
  properties: Record<string, Schema>;
  /** A schema every other member must match, `true` for any, `false` for none, undefined when unsaid. */
  additional: Schema | boolean | undefined;
  items: Schema | undefined;
}

function parts(schema: Schema): Schema[] {
  const at = deref(schema);
  if (!at || typeof at !== 'object') return [];
  const nested = [...(at.allOf ?? []), ...(at.oneOf ?? []), ...(at.anyOf ?? [])];
  return [at, ...nested.flatMap(parts)];
}

function shapeOf(schema: Schema): Shape {
  const shape: Shape = { properties: {}, additional: undefined, items: undefined };
  for (const part of parts(schema)) {
    for (const [name, member] of Object.entries((part.properties ?? {}) as Record<string, Schema>))
      shape.properties[name] ??= member;
    const extra = part.additionalProperties;
    if (extra !== undefined && extra !== false) shape.additional = extra;
    else if (extra === false && shape.additional === undefined) shape.additional = false;
    shape.items ??= part.items;
  }
  return shape;
}

/** Paths (`body.data[0].x`) of members no schema declares, at most a few. */
export function undeclaredMembers(value: unknown, schema: Schema, at: string, out: string[] = []): string[] {
  if (out.length >= 5 || value === null || typeof value !== 'object') return out;
  const shape = shapeOf(schema);
  if (Array.isArray(value)) {
    if (shape.items)
      for (const [i, item] of value.entries()) undeclaredMembers(item, shape.items, `${at}[${i}]`, out);
    return out;
  }
  const declaresAny = Object.keys(shape.properties).length > 0;
  for (const [name, member] of Object.entries(value)) {
    if (name in shape.properties) undeclaredMembers(member, shape.properties[name], `${at}.${name}`, out);
    else if (typeof shape.additional === 'object')
      undeclaredMembers(member, shape.additional, `${at}.${name}`, out);
    else if (shape.additional === false || (declaresAny && shape.additional === undefined))
      out.push(`${at}.${name} is not in the document`);
  }
  return out;
}

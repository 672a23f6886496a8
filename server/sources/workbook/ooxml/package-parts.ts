/**
 * The package's wiring (OPC): relationship parts, target resolution and content types. Read with plain
 * text scans; these parts are small and SheetPort only ever edits single entries of them.
 */
import path from 'node:path';
import { getAttr, tagPattern } from './xml-text.ts';

export interface Relationship {
  id: string;
  type: string;
  /** The target as a zip entry name (resolved against the owner's folder), or the raw target when external. */
  target: string;
  external: boolean;
  /** The Relationship tag as written. */
  tag: string;
}

/** `xl/workbook.xml` -> `xl/_rels/workbook.xml.rels`. */
export function relsNameOf(part: string): string {
  return path.posix.join(path.posix.dirname(part), '_rels', `${path.posix.basename(part)}.rels`);
}

export function resolveTarget(ownerPart: string, target: string): string {
  const decoded = decodeURIComponentSafe(target);
  if (decoded.startsWith('/')) return path.posix.normalize(decoded.slice(1));
  return path.posix.normalize(path.posix.join(path.posix.dirname(ownerPart), decoded));
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function parseRels(ownerPart: string, xml: string | undefined): Relationship[] {
  if (xml === undefined) return [];
  const rels: Relationship[] = [];
  for (const [tag] of xml.matchAll(tagPattern('Relationship'))) {
    const id = getAttr(tag, 'Id');
    const type = getAttr(tag, 'Type') ?? '';
    const target = getAttr(tag, 'Target');
    if (id === undefined || target === undefined) continue;
    const external = getAttr(tag, 'TargetMode') === 'External';
    rels.push({ id, type, target: external ? target : resolveTarget(ownerPart, target), external, tag });
  }
  return rels;
}

/** Relationship types by their last segment (the transitional and strict namespaces differ before it). */
export function relKind(rel: Relationship): string {
  return rel.type.slice(rel.type.lastIndexOf('/') + 1);
}

/** The rels XML without the relationships whose targets are in `parts`. */
export function removeRelsTo(xml: string, ownerPart: string, parts: ReadonlySet<string>): string {
  return xml.replace(tagPattern('Relationship'), (tag) => {
    const target = getAttr(tag, 'Target');
    if (target === undefined || getAttr(tag, 'TargetMode') === 'External') return tag;
    return parts.has(resolveTarget(ownerPart, target)) ? '' : tag;
  });
}

/** `[Content_Types].xml` without the Overrides for `parts`. */
export function removeOverrides(xml: string, parts: ReadonlySet<string>): string {
  return xml.replace(tagPattern('Override'), (tag) => {
    const name = getAttr(tag, 'PartName')?.replace(/^\//, '');
    return name !== undefined && parts.has(name) ? '' : tag;
  });
}

/** The rels XML with one more internal relationship (an Id not yet used); `target` is relative to the owner. */
export function addRelationship(xml: string, type: string, target: string): string {
  const used = new Set([...xml.matchAll(tagPattern('Relationship'))].map(([tag]) => getAttr(tag, 'Id')));
  let n = used.size + 1;
  while (used.has(`rId${n}`)) n++;
  const prefix = /<([A-Za-z_][\w.-]*:)?Relationships[\s>]/.exec(xml)?.[1] ?? '';
  const tag = `<${prefix}Relationship Id="rId${n}" Type="${type}" Target="${target}"/>`;
  return xml.replace(/<\/([A-Za-z_][\w.-]*:)?Relationships>/, (end) => tag + end);
}

/** `[Content_Types].xml` with an Override for `part` (a zip entry name). */
export function addOverride(xml: string, part: string, contentType: string): string {
  const prefix = /<([A-Za-z_][\w.-]*:)?Types[\s>]/.exec(xml)?.[1] ?? '';
  const tag = `<${prefix}Override PartName="/${part}" ContentType="${contentType}"/>`;
  return xml.replace(/<\/([A-Za-z_][\w.-]*:)?Types>/, (end) => tag + end);
}

/**
 * The package written out: every part a write changed as its new bytes (an edited sheet as its deflated
 * pieces), every other zip entry copied with its compressed bytes untouched (zip-writer.ts).
 */
import path from 'node:path';
import type { Precompressed } from './chunked-deflate.ts';
import { CONTENT_TYPES, type OoxmlPackage } from './ooxml-package.ts';
import { addOverride, addRelationship, parseRels, relsNameOf } from './package-parts.ts';
import { STYLES_CONTENT_TYPE, STYLES_REL_TYPE } from './styles-part.ts';
import { writeZip } from './zip-writer.ts';

const EMPTY_RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';

export async function serializePackage(pkg: OoxmlPackage): Promise<readonly Uint8Array[]> {
  const changes = new Map<string, Uint8Array | Precompressed | null>();
  // First: adding a styles part also edits the workbook's rels and the content types.
  const styles = pkg.stylesRead;
  if (styles?.changed) {
    const part = pkg.relTarget('styles') ?? addStylesPart(pkg);
    changes.set(part, Buffer.from(styles.xml, 'utf8'));
  }
  for (const [part, text] of pkg.texts) changes.set(part, text === null ? null : Buffer.from(text, 'utf8'));
  for (const [part, sheet] of pkg.sheets) {
    // A sheet no write changed is the archive's text: let it go (it is read again if an edit needs it), unless
    // the archive let its bytes go first (OoxmlPackage.releaseHeldSheets): its pieces are all there is of it.
    if (!sheet.changed && !pkg.onlyHeld(part)) pkg.sheets.delete(part);
    else changes.set(part, await sheet.compress());
  }
  for (const table of pkg.tables.values())
    if (table.changed) changes.set(table.part, Buffer.from(table.xml, 'utf8'));
  return writeZip(pkg.archive, changes);
}

/**
 * A workbook saved without a styles part (some generators omit it) gets one when a write first needs a
 * number format: the part, its relationship from the workbook and its content type.
 */
function addStylesPart(pkg: OoxmlPackage): string {
  const dir = path.posix.dirname(pkg.workbookPart);
  let part = path.posix.join(dir, 'styles.xml');
  for (let n = 2; pkg.archive.has(part) || pkg.texts.has(part); n++)
    part = path.posix.join(dir, `styles${n}.xml`);
  const relsName = pkg.partName(relsNameOf(pkg.workbookPart));
  const rels = pkg.text(relsName) ?? EMPTY_RELS;
  const withRel = addRelationship(rels, STYLES_REL_TYPE, path.posix.relative(dir, part));
  pkg.setText(relsName, withRel);
  pkg.workbookRels.push(...parseRels(pkg.workbookPart, withRel).filter((r) => r.target === part));
  const types = pkg.text(CONTENT_TYPES);
  if (types !== undefined) pkg.setText(CONTENT_TYPES, addOverride(types, part, STYLES_CONTENT_TYPE));
  return part;
}

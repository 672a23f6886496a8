import path from 'node:path';
import JSZip from 'jszip';

/**
 * Package parts ExcelJS silently drops when it saves a workbook. A write to a file that has any of them
 * would destroy the user's charts or macros, so such files are read-only for SheetPort (409 conflict).
 */
const UNKEPT_PARTS: readonly [prefix: string, what: string][] = [
  ['xl/charts/', 'charts'],
  ['xl/chartsheets/', 'chart sheets'],
  ['xl/pivotTables/', 'pivot tables'],
  ['xl/pivotCache/', 'pivot tables'],
  ['xl/slicers/', 'slicers'],
  ['xl/slicerCaches/', 'slicers'],
  ['xl/timelines/', 'timelines'],
  ['xl/vbaProject.bin', 'macros (VBA)'],
  ['xl/externalLinks/', 'external links'],
  ['xl/ctrlProps/', 'form controls'],
  ['xl/activeX/', 'ActiveX controls'],
  // Excel 365 threaded comments: ExcelJS keeps only their plain-note copy, so replies would be flattened.
  ['xl/threadedComments/', 'threaded comments'],
];

export interface PreparedPackage {
  /** The bytes to hand to ExcelJS (rewritten only when targets, part names or comment text needed fixing). */
  bytes: Uint8Array;
  /** What a save would lose, e.g. `['charts']`; empty when writing is safe. */
  lostOnSave: string[];
}

/**
 * Looks inside the zip before ExcelJS does, and rewrites what ExcelJS cannot resolve:
 * - Files written by openpyxl (and so by pandas) use absolute relationship targets
 *   (`/xl/tables/table1.xml`), which ExcelJS cannot resolve for tables and fails on; Excel itself writes
 *   relative ones. Those targets are made relative.
 * - ExcelJS only loads comments from parts named like Excel names them (`xl/comments1.xml`,
 *   `xl/drawings/vmlDrawing1.vml`) and looks a sheet's comments relationship up by that name, so any other
 *   name (openpyxl writes `xl/comments/comment1.xml` and `xl/drawings/commentsDrawing1.vml`) fails with
 *   "Cannot read properties of undefined (reading 'comments')". Such parts are renamed (see
 *   {@link renameCommentParts}).
 */
export async function prepareXlsxPackage(bytes: Uint8Array): Promise<PreparedPackage> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes);
  } catch {
    return { bytes, lostOnSave: [] }; // Not a readable zip: the ExcelJS load reports that itself.
  }
  const lost = new Set<string>();
  for (const name of Object.keys(zip.files)) {
    for (const [prefix, what] of UNKEPT_PARTS) if (name.startsWith(prefix)) lost.add(what);
  }
  let rewritten = false;
  for (const name of Object.keys(zip.files)) {
    if (!name.startsWith('xl/') || !name.endsWith('.rels')) continue;
    const xml = await zip.file(name)!.async('string');
    const fixed = relativizeTargets(name, xml);
    if (fixed !== xml) {
      zip.file(name, fixed);
      rewritten = true;
    }
  }
  if (await renameCommentParts(zip)) rewritten = true;
  for (const name of Object.keys(zip.files)) {
    if (!/^xl\/comments\d+\.xml$/.test(name)) continue;
    const xml = await zip.file(name)!.async('string');
    const fixed = wrapPlainCommentText(xml);
    if (fixed !== xml) {
      zip.file(name, fixed);
      rewritten = true;
    }
  }
  const out = rewritten ? await zip.generateAsync({ type: 'uint8array' }) : bytes;
  return { bytes: out, lostOnSave: [...lost] };
}

/** `xl/worksheets/_rels/sheet1.xml.rels` owns `xl/worksheets/sheet1.xml`; targets are relative to its folder. */
export function relativizeTargets(relsName: string, xml: string): string {
  const ownerDir = path.posix.dirname(path.posix.dirname(relsName));
  return xml.replace(/<Relationship\b[^>]*>/g, (tag) => {
    if (/TargetMode\s*=\s*"External"/.test(tag)) return tag;
    return tag.replace(/Target\s*=\s*"\/([^"]+)"/, (_m, absolute: string) => {
      return `Target="${path.posix.relative(ownerDir, absolute)}"`;
    });
  });
}

/**
 * A comment's text may be plain (`<text><t>hi</t></text>`, as openpyxl writes it) or rich-text runs
 * (`<text><r><t>hi</t></r></text>`, as Excel does). ExcelJS reads only runs and would load the plain form
 * as an empty note, so plain text is wrapped in a single run, which means the same.
 */
export function wrapPlainCommentText(xml: string): string {
  return xml.replace(/(<text\b[^>]*>\s*)(<t(?:\s[^>]*)?(?:\/>|>[\s\S]*?<\/t>))/g, '$1<r>$2</r>');
}

const COMMENTS_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments';
const VML_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/vmlDrawing';

/** The part names ExcelJS's loader recognises (its own patterns, anchored), and how to make a fresh one. */
const EXCELJS_NAMES: Record<string, { pattern: RegExp; name: (n: number) => string }> = {
  [COMMENTS_REL]: { pattern: /^xl\/comments\d+\.xml$/, name: (n) => `xl/comments${n}.xml` },
  [VML_REL]: { pattern: /^xl\/drawings\/vmlDrawing\d+\.vml$/, name: (n) => `xl/drawings/vmlDrawing${n}.vml` },
};

function attr(tag: string, name: string): string | undefined {
  return new RegExp(`\\b${name}\\s*=\\s*"([^"]*)"`).exec(tag)?.[1];
}

/** `/xl/a.xml` or a target relative to the folder that owns the .rels file, as a zip entry name. */
function resolveTarget(ownerDir: string, target: string): string {
  const joined = target.startsWith('/') ? target.slice(1) : path.posix.join(ownerDir, target);
  return path.posix.normalize(joined);
}

/**
 * Renames each worksheet's comments and VML drawing parts that ExcelJS would not recognise to names it
 * does (`xl/commentsN.xml`, `xl/drawings/vmlDrawingN.vml`, N unused), moving the part's own .rels along
 * and updating the worksheet .rels targets and `[Content_Types].xml`, so the package stays valid.
 * Returns whether anything changed.
 */
export async function renameCommentParts(zip: JSZip): Promise<boolean> {
  const renames = new Map<string, string>(); // old part name -> new part name
  const taken = new Set(Object.keys(zip.files));
  const sheetRels = Object.keys(zip.files).filter((n) => /^xl\/worksheets\/_rels\/[^/]+\.xml\.rels$/.test(n));
  for (const relsName of sheetRels) {
    const ownerDir = path.posix.dirname(path.posix.dirname(relsName));
    const xml = await zip.file(relsName)!.async('string');
    let changed = false;
    const fixed = xml.replace(/<Relationship\b[^>]*>/g, (tag) => {
      const type = attr(tag, 'Type');
      const target = attr(tag, 'Target');
      const naming = type === undefined ? undefined : EXCELJS_NAMES[type];
      if (!naming || target === undefined || /TargetMode\s*=\s*"External"/.test(tag)) return tag;
      const part = resolveTarget(ownerDir, target);
      if (naming.pattern.test(part) || !zip.file(part)) return tag; // already fine, or dangling: leave it
      let renamed = renames.get(part);
      if (!renamed) {
        let n = 1;
        while (taken.has(naming.name(n))) n++;
        renamed = naming.name(n);
        taken.add(renamed);
        renames.set(part, renamed);
      }
      changed = true;
      return tag.replace(/\bTarget\s*=\s*"[^"]*"/, `Target="${path.posix.relative(ownerDir, renamed)}"`);
    });
    if (changed) zip.file(relsName, fixed);
  }
  if (renames.size === 0) return false;

  for (const [from, to] of renames) {
    await movePart(zip, from, to);
    const partRels = relsNameOf(from);
    if (zip.file(partRels)) {
      // Relative targets in the part's own .rels keep resolving only if the folder did not change.
      const xml = await zip.file(partRels)!.async('string');
      const fromDir = path.posix.dirname(from);
      const toDir = path.posix.dirname(to);
      const moved =
        fromDir === toDir
          ? xml
          : xml.replace(/<Relationship\b[^>]*>/g, (tag) => {
              const target = attr(tag, 'Target');
              if (target === undefined || target.startsWith('/') || /TargetMode\s*=\s*"External"/.test(tag))
                return tag;
              const relative = path.posix.relative(toDir, resolveTarget(fromDir, target));
              return tag.replace(/\bTarget\s*=\s*"[^"]*"/, `Target="${relative}"`);
            });
      zip.remove(partRels);
      zip.file(relsNameOf(to), moved);
    }
  }

  const typesName = '[Content_Types].xml';
  const types = await zip.file(typesName)?.async('string');
  if (types !== undefined) zip.file(typesName, retypeParts(types, renames));
  return true;
}

/**
 * `[Content_Types].xml` after renaming parts: each renamed part keeps the content type it had (from its
 * Override, else the Default for its old extension), with an Override under the new name unless the
 * Default for the new extension already gives that type.
 */
function retypeParts(types: string, renames: ReadonlyMap<string, string>): string {
  const defaults = new Map<string, string>();
  for (const [tag] of types.matchAll(/<Default\b[^>]*>/g)) {
    const ext = attr(tag, 'Extension');
    const type = attr(tag, 'ContentType');
    if (ext !== undefined && type !== undefined) defaults.set(ext.toLowerCase(), type);
  }
  const typeOf = new Map<string, string>();
  const kept = types.replace(/<Override\b[^>]*>/g, (tag) => {
    const part = attr(tag, 'PartName')?.replace(/^\//, '');
    const type = attr(tag, 'ContentType');
    if (part === undefined || !renames.has(part)) return tag;
    if (type !== undefined) typeOf.set(part, type);
    return '';
  });
  const extOf = (part: string) => path.posix.extname(part).slice(1).toLowerCase();
  let added = '';
  for (const [from, to] of renames) {
    const type = typeOf.get(from) ?? defaults.get(extOf(from));
    if (type !== undefined && defaults.get(extOf(to)) !== type) {
      added += `<Override PartName="/${to}" ContentType="${type}"/>`;
    }
  }
  return added ? kept.replace(/<\/Types>\s*$/, `${added}</Types>`) : kept;
}

/** `xl/drawings/a.vml` -> `xl/drawings/_rels/a.vml.rels`. */
function relsNameOf(part: string): string {
  return path.posix.join(path.posix.dirname(part), '_rels', `${path.posix.basename(part)}.rels`);
}

async function movePart(zip: JSZip, from: string, to: string): Promise<void> {
  const content = await zip.file(from)!.async('uint8array');
  zip.remove(from);
  zip.file(to, content);
}

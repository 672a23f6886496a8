/**
 * Small text helpers for editing XML parts in place: reading and setting one attribute of a start tag, and
 * escaping. Parts are edited as text so everything SheetPort does not touch keeps its exact bytes.
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeXml(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_m, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(Number(ref.slice(1)));
    return ENTITIES[ref] as string;
  });
}

const NEEDS_ESCAPE = /[&<>"]/;

export function escapeXml(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(/[&<>"]/g, (ch) =>
    ch === '&' ? '&amp;' : ch === '<' ? '&lt;' : ch === '>' ? '&gt;' : '&quot;',
  );
}

/**
 * The pattern of one attribute, made once per name: a delete renumbers every row below it, and compiling a
 * pattern for each of their cells cost more than the edits themselves.
 */
const attributePatterns = new Map<string, RegExp>();
function attributePattern(name: string): RegExp {
  let pattern = attributePatterns.get(name);
  if (!pattern) {
    pattern = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`);
    attributePatterns.set(name, pattern);
  }
  return pattern;
}

/** The decoded value of `name` in a start tag (`<c r="A1" s="3">`), or undefined. */
export function getAttr(tag: string, name: string): string | undefined {
  const m = attributePattern(name).exec(tag);
  if (!m) return undefined;
  return decodeXml(m[1] ?? m[2] ?? '');
}

/** The start tag with `name` set to `value` (added before the tag's end when absent), or removed for undefined. */
export function setAttr(tag: string, name: string, value: string | undefined): string {
  const pattern = attributePattern(name);
  if (value === undefined) return tag.replace(pattern, '');
  const text = ` ${name}="${escapeXml(value)}"`;
  if (pattern.test(tag)) return tag.replace(pattern, text);
  return beforeTagEnd(tag, text);
}

/** `tag` with `text` put before its end (`>` or `/>`), the blanks before that end dropped. */
function beforeTagEnd(tag: string, text: string): string {
  if (!tag.endsWith('>')) return tag;
  const end = tag.endsWith('/>') ? tag.length - 2 : tag.length - 1;
  return `${tag.slice(0, end).trimEnd()}${text}${tag.slice(end)}`;
}

/** Every start (or empty) tag with the local name `local`, any namespace prefix. */
export function tagPattern(local: string): RegExp {
  return new RegExp(`<(?:[A-Za-z_][\\w.-]*:)?${local}(?=[\\s/>])[^>]*>`, 'g');
}

/**
 * `xl/styles.xml` as far as values need it: each cell style (cellXfs entry) -> its number format code, with
 * the built-in ids ExcelJS knows (so both engines type and format the same cells alike). A write that needs
 * a date, percent or currency format on a cell adds one cellXfs entry (and a numFmt when the code is not
 * built in); everything else in the part is left as written.
 */
import { escapeXml, getAttr, setAttr, tagPattern } from './xml-text.ts';

/** Built-in number formats (ECMA-376 18.8.30, en-US), as ExcelJS's table lists them. */
const BUILT_IN: Record<number, string> = {
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  9: '0%',
  10: '0.00%',
  11: '0.00E+00',
  12: '# ?/?',
  13: '# ??/??',
  14: 'mm-dd-yy',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  22: 'm/d/yy "h":mm',
  37: '#,##0 ;(#,##0)',
  38: '#,##0 ;[Red](#,##0)',
  39: '#,##0.00 ;(#,##0.00)',
  40: '#,##0.00 ;[Red](#,##0.00)',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mmss.0',
  48: '##0.0E+0',
  49: '@',
};

const FIRST_CUSTOM_ID = 164;

/** The smallest styles part Excel accepts: one font, the two required fills, one border, the Normal style. */
const MINIMAL_STYLES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
  '<fonts count="1"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
  '</styleSheet>';

export const STYLES_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml';
export const STYLES_REL_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles';

interface Xf {
  numFmtId: number;
  tag: string;
}

export class StylesPart {
  #xml: string;
  readonly #customFormats = new Map<number, string>();
  readonly #xfs: Xf[] = [];
  /** Style ids added by this write, by `base:format`, so a batch adds each combination once. */
  readonly #added = new Map<string, number>();
  #changed = false;

  constructor(xml: string | undefined) {
    // A package without a styles part shows every cell in style 0 (General): the minimal part says the same,
    // and is only written out when a write adds a style to it.
    this.#xml = xml ?? MINIMAL_STYLES;
    // Only the numFmts block: dxfs (conditional formats) hold numFmt elements too.
    const numFmts = /<((?:[\w.-]+:)?numFmts)\b[^>]*>([\s\S]*?)<\/\1>/.exec(this.#xml)?.[2] ?? '';
    for (const [tag] of numFmts.matchAll(tagPattern('numFmt'))) {
      const id = Number(getAttr(tag, 'numFmtId'));
      const code = getAttr(tag, 'formatCode');
      if (Number.isInteger(id) && code !== undefined) this.#customFormats.set(id, code);
    }
    const cellXfs = this.#cellXfsBody();
    if (cellXfs) {
      const xf = /<((?:[\w.-]+:)?xf)\b[^>]*?(?:\/>|>[\s\S]*?<\/\1>)/g;
      for (const [tag] of cellXfs.body.matchAll(xf)) {
        this.#xfs.push({ numFmtId: Number(getAttr(/^<[^>]*>/.exec(tag)?.[0] ?? '', 'numFmtId') ?? 0), tag });
      }
    }
  }

  get changed(): boolean {
    return this.#changed;
  }

  get xml(): string {
    return this.#xml;
  }

  #cellXfsBody(): { start: number; body: string } | undefined {
    const m = /<((?:[\w.-]+:)?cellXfs)\b[^>]*>([\s\S]*?)<\/\1>/.exec(this.#xml);
    if (!m) return undefined;
    return { start: m.index + m[0].indexOf('>') + 1, body: m[2] as string };
  }

  /** The number format of style `s` as ExcelJS reports it: undefined for General (id 0) or unknown ids. */
  numFmt(styleId: number): string | undefined {
    const xf = this.#xfs[styleId];
    if (!xf?.numFmtId) return undefined;
    return this.#customFormats.get(xf.numFmtId) ?? BUILT_IN[xf.numFmtId];
  }

  /** A style like `baseStyle` (0 when the cell had none) but showing `code`; added to the part when new. */
  withNumFmt(baseStyle: number, code: string): number {
    const key = `${baseStyle}:${code}`;
    const known = this.#added.get(key);
    if (known !== undefined) return known;
    const numFmtId = this.#formatId(code);
    const base =
      this.#xfs[baseStyle]?.tag ?? '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>';
    // The copy keeps the base's font, fill, border, alignment and protection (attributes and children).
    const start = /^<[^>]*>/.exec(base)?.[0] as string;
    const tag =
      setAttr(setAttr(start, 'numFmtId', String(numFmtId)), 'applyNumberFormat', '1') +
      base.slice(start.length);
    const cellXfs = this.#cellXfsBody();
    if (!cellXfs) throw new Error('styles.xml has no cellXfs');
    const insertAt = cellXfs.start + cellXfs.body.length;
    this.#xml = this.#xml.slice(0, insertAt) + tag + this.#xml.slice(insertAt);
    const id = this.#xfs.length;
    this.#xfs.push({ numFmtId, tag });
    this.#xml = this.#xml.replace(tagPattern('cellXfs'), (open) =>
      setAttr(open, 'count', String(this.#xfs.length)),
    );
    this.#added.set(key, id);
    this.#changed = true;
    return id;
  }

  #formatId(code: string): number {
    for (const [id, builtIn] of Object.entries(BUILT_IN)) if (builtIn === code) return Number(id);
    for (const [id, custom] of this.#customFormats) if (custom === code) return id;
    const id = Math.max(FIRST_CUSTOM_ID - 1, ...this.#customFormats.keys()) + 1;
    this.#customFormats.set(id, code);
    const entry = `<numFmt numFmtId="${id}" formatCode="${escapeXml(code)}"/>`;
    const numFmts = /<((?:[\w.-]+:)?numFmts)\b[^>]*>([\s\S]*?)<\/\1>/.exec(this.#xml);
    if (numFmts) {
      const end = numFmts.index + numFmts[0].lastIndexOf('</');
      this.#xml = this.#xml.slice(0, end) + entry + this.#xml.slice(end);
      this.#xml = this.#xml.replace(tagPattern('numFmts'), (open) =>
        setAttr(open, 'count', String(this.#customFormats.size)),
      );
    } else {
      // numFmts is the first child of styleSheet.
      this.#xml = this.#xml.replace(
        /<((?:[\w.-]+:)?)styleSheet\b[^>]*>/,
        (open, prefix: string) =>
          `${open}<${prefix}numFmts count="1">${entry.replace('<numFmt', `<${prefix}numFmt`)}</${prefix}numFmts>`,
      );
    }
    return id;
  }
}

/**
 * One API value -> the `<c>` element that stores it. The cell keeps its style (`s`) unless the value needs
 * a date, percent or currency format the style lacks; then a style with that format is added (styles.xml is
 * rewritten). Text goes in as an inline string, so sharedStrings.xml is never rewritten.
 */
import { assertShownAsDate } from '../../cell-rules.ts';
import { DATE_FORMAT, DATE_TIME_FORMAT, type ParsedInput } from '../../input.ts';
import { workbookDateSystem } from '../../serial-dates.ts';
import { encodeCellText } from '../ooxml-text.ts';
import { isDateFormat, isGeneralFormat } from '../values.ts';
import type { StylesPart } from './styles-part.ts';
import { escapeXml, getAttr } from './xml-text.ts';

export interface CellTarget {
  ref: string;
  /** The cell's current style id (0 when it has none). */
  style: number;
  prefix: string;
  date1904: boolean;
  /** The field and mutation index that named the cell, for an error about its value. */
  field?: string | undefined;
  index?: number | undefined;
}

export function styleOf(cellXml: string | undefined): number {
  if (cellXml === undefined) return 0;
  const tag = /^<[^>]*>/.exec(cellXml)?.[0] ?? '';
  const s = Number(getAttr(tag, 's') ?? 0);
  return Number.isInteger(s) && s >= 0 ? s : 0;
}

function cellTag(target: CellTarget, style: number, type: string | undefined, body: string): string {
  const p = target.prefix;
  const attrs = `r="${target.ref}"${style ? ` s="${style}"` : ''}${type ? ` t="${type}"` : ''}`;
  return body === '' ? `<${p}c ${attrs}/>` : `<${p}c ${attrs}>${body}</${p}c>`;
}

/** Shortest text that reads back as the same double. */
function numberText(n: number): string {
  return String(n);
}

/** Text as an inline string (sharedStrings.xml is never rewritten). */
function textCell(target: CellTarget, value: string): string {
  const p = target.prefix;
  const text = escapeXml(encodeCellText(value));
  return cellTag(
    target,
    target.style,
    'inlineStr',
    `<${p}is><${p}t xml:space="preserve">${text}</${p}t></${p}is>`,
  );
}

/** The cell XML for `parsed`, or null when the cell should go (empty value and no style to keep). */
export function writeCellXml(parsed: ParsedInput, target: CellTarget, styles: StylesPart): string | null {
  const p = target.prefix;
  const numFmt = styles.numFmt(target.style);
  switch (parsed.kind) {
    case 'empty':
      return target.style ? cellTag(target, target.style, undefined, '') : null;
    case 'number': {
      const style =
        parsed.numFmt && isGeneralFormat(numFmt)
          ? styles.withNumFmt(target.style, parsed.numFmt)
          : target.style;
      // Planning refused such a number already (plan.ts); this holds should a style change within the write
      // (a date written into the row appended rows copy) make the cell a date cell after all.
      if (isDateFormat(styles.numFmt(style))) {
        const dates = workbookDateSystem(target.date1904);
        assertShownAsDate(parsed.value, dates, target.field ?? target.ref, target.index);
      }
      return cellTag(target, style, undefined, `<${p}v>${numberText(parsed.value)}</${p}v>`);
    }
    case 'boolean':
      return cellTag(target, target.style, 'b', `<${p}v>${parsed.value ? 1 : 0}</${p}v>`);
    case 'date': {
      // A date the workbook's date system has no serial for (before 1900, or a bare time in the 1904 system)
      // stays the text it was given, as Excel keeps such typing.
      const serial = workbookDateSystem(target.date1904).serial(parsed.value, parsed.timeOnly);
      if (serial === null) return textCell(target, parsed.text);
      // A date needs a date format to be a date at all (in the file it is a serial number).
      const style = isDateFormat(numFmt)
        ? target.style
        : styles.withNumFmt(target.style, parsed.numFmt ?? (parsed.hasTime ? DATE_TIME_FORMAT : DATE_FORMAT));
      return cellTag(target, style, undefined, `<${p}v>${numberText(serial)}</${p}v>`);
    }
    case 'text':
      return textCell(target, parsed.value);
    case 'formula':
      // No cached result: fullCalcOnLoad makes Excel compute it on open.
      return cellTag(target, target.style, undefined, `<${p}f>${escapeXml(parsed.formula)}</${p}f>`);
  }
}

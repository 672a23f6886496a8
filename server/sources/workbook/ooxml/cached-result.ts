/**
 * A formula cell's cached result (`<v>` and the cell's `t`), set to what the service computed, so readers that
 * do not calculate (openpyxl, pandas, a sync preview) see the value the API serves. The formula stays as it was.
 */
import type { FormulaResult } from '../formulas/evaluator.ts';
import { encodeCellText } from '../ooxml-text.ts';
import { escapeXml, setAttr } from './xml-text.ts';

export function withCachedResult(cellXml: string, result: FormulaResult, prefix: string): string {
  const start = /^<[^>]*>/.exec(cellXml)?.[0];
  if (!start || start.endsWith('/>')) return cellXml;
  const type =
    result.kind === 'number'
      ? undefined
      : result.kind === 'boolean'
        ? 'b'
        : result.kind === 'error'
          ? 'e'
          : 'str';
  const text =
    result.kind === 'number'
      ? String(result.value)
      : result.kind === 'boolean'
        ? result.value
          ? '1'
          : '0'
        : escapeXml(result.kind === 'text' ? encodeCellText(result.value) : result.value);
  const p = prefix.replace('.', '\\.');
  const body = cellXml
    .slice(start.length)
    .replace(new RegExp(`<${p}v(?:\\s[^>]*)?(?:/>|>[\\s\\S]*?</${p}v>)`), '');
  const v = `<${prefix}v>${text}</${prefix}v>`;
  const formulaEnd = new RegExp(`(<${p}f\\b[^>]*/>|</${p}f>)`).exec(body);
  if (!formulaEnd) return cellXml;
  const at = formulaEnd.index + formulaEnd[0].length;
  return setAttr(start, 't', type) + body.slice(0, at) + v + body.slice(at);
}

/** The scale benchmark's result for one size, as a markdown table: a row per measure, a column per server. */
import { type Column, ROWS } from './measure.ts';

const cell = (text: string | undefined): string => (text ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function markdownTable(title: string, columns: { name: string; column: Column }[]): string {
  const lines = [`| ${cell(title)} | ${columns.map((c) => cell(c.name)).join(' | ')} |`];
  lines.push(`|---|${columns.map(() => '---|').join('')}`);
  for (const [key, label] of Object.entries(ROWS) as [keyof typeof ROWS, string][]) {
    if (columns.every((c) => c.column[key] === undefined)) continue;
    lines.push(`| ${label} | ${columns.map((c) => cell(c.column[key] ?? '-')).join(' | ')} |`);
  }
  return lines.join('\n');
}

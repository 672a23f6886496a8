// Drive's `q` search language, the subset that matters for spreadsheets:
// `mimeType = '…'`, `name = '…'`, `name contains '…'`, `trashed = false`, joined with and/or, `not`.
import { GoogleError } from './errors.ts';
import type { DriveFile } from './store.ts';

type Predicate = (file: DriveFile) => boolean;

const invalid = (_q: string) =>
  new GoogleError(400, 'Invalid Value', {
    errors: [
      {
        message: 'Invalid Value',
        domain: 'global',
        reason: 'invalid',
        location: 'q',
        locationType: 'parameter',
      },
    ],
  });

function tokenize(q: string): string[] {
  const tokens: string[] = [];
  const re = /\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|!=|<=|>=|[=<>()]|[^\s=<>()!'"]+)/gy;
  let end = 0;
  for (;;) {
    const m = re.exec(q);
    if (!m) break;
    tokens.push(m[1] as string);
    end = re.lastIndex;
  }
  if (q.slice(end).trim() !== '') throw invalid(q);
  return tokens;
}

const unquote = (token: string): string => token.slice(1, -1).replace(/\\(.)/g, '$1');

export function parseDriveQuery(q: string | null): Predicate {
  if (!q || q.trim() === '') return () => true;
  const tokens = tokenize(q);
  let i = 0;
  const peek = () => tokens[i]?.toLowerCase();
  const term = (): Predicate => {
    if (peek() === 'not') {
      i++;
      const inner = term();
      return (f) => !inner(f);
    }
    if (peek() === '(') {
      i++;
      const inner = orExpr();
      if (tokens[i++] !== ')') throw invalid(q);
      return inner;
    }
    const field = tokens[i++];
    const op = tokens[i++]?.toLowerCase();
    const raw = tokens[i++];
    if (!field || !op || raw === undefined) throw invalid(q);
    const value = raw.startsWith("'") || raw.startsWith('"') ? unquote(raw) : raw;
    const get = (f: DriveFile): string | boolean =>
      field === 'name' ? f.name : field === 'mimeType' ? f.mimeType : field === 'trashed' ? false : '';
    if (!['name', 'mimeType', 'trashed'].includes(field)) throw invalid(q);
    const expected = field === 'trashed' ? value === 'true' : value;
    if (op === '=') return (f) => get(f) === expected;
    if (op === '!=') return (f) => get(f) !== expected;
    if (op === 'contains') return (f) => String(get(f)).toLowerCase().includes(String(value).toLowerCase());
    throw invalid(q);
  };
  const andExpr = (): Predicate => {
    let left = term();
    while (peek() === 'and') {
      i++;
      const right = term();
      const l = left;
      left = (f) => l(f) && right(f);
    }
    return left;
  };
  const orExpr = (): Predicate => {
    let left = andExpr();
    while (peek() === 'or') {
      i++;
      const right = andExpr();
      const l = left;
      left = (f) => l(f) || right(f);
    }
    return left;
  };
  const predicate = orExpr();
  if (i !== tokens.length) throw invalid(q);
  return predicate;
}

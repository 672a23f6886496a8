/**
 * The `google` kind: spreadsheets in Google Sheets, located by their spreadsheet id (bare, or inside a
 * docs.google.com URL). The connection's spreadsheet id is Google's own id (docs/api.md, "Google Sheets"), hence no prefix.
 */
import { existsSync } from 'node:fs';
import type { SourceKind } from '../kind.ts';
import { googleAccounts } from './accounts.ts';
import { requireSpreadsheetId, spreadsheetIdIn } from './location.ts';
import { GoogleSource } from './source.ts';

export const googleKind: SourceKind = {
  name: 'google',
  idPrefix: '',
  describe: 'a Google spreadsheet id or docs.google.com/spreadsheets URL',
  label: 'a Google Sheets spreadsheet',
  // A local file that happens to look like an id stays the workbook kind's.
  claims: (input) => spreadsheetIdIn(input) !== null && !existsSync(input),
  // No network here: the connect use case reads the spreadsheet (and its title) right after resolving.
  resolveLocation: async (input) => {
    const id = requireSpreadsheetId(input);
    return { location: id, name: id };
  },
  open: (location, options) => new GoogleSource(location, options),
  spreadsheetIdFor: (location) => location,
  accounts: googleAccounts,
};

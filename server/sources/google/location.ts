/**
 * What a Google spreadsheet location is: its id, given bare or inside a docs.google.com URL. The id itself is the
 * canonical location, so the same spreadsheet pasted as a URL or as an id is one connection.
 */
import { AppError } from '../../errors.ts';

/** Drive ids are URL-safe base64: letters, digits, '-' and '_'; Google's own are 44 characters long. */
const BARE_ID = /^[A-Za-z0-9_-]{25,}$/;
const URL_ID = /^https?:\/\/docs\.google\.com\/spreadsheets\/(?:u\/\d+\/)?d\/([A-Za-z0-9_-]+)/;

/** The spreadsheet id in `input`, or null when it is neither a bare id nor a Sheets URL. */
export function spreadsheetIdIn(input: string): string | null {
  const text = input.trim();
  const fromUrl = URL_ID.exec(text)?.[1];
  if (fromUrl) return fromUrl;
  // A bare id never contains a dot or a slash, which keeps file names like `book.xlsx` out.
  return BARE_ID.test(text) ? text : null;
}

export function requireSpreadsheetId(input: string): string {
  const id = spreadsheetIdIn(input);
  if (!id) {
    throw new AppError(
      'invalid_parameter',
      `'${input}' is not a Google spreadsheet id or a docs.google.com/spreadsheets URL.`,
      { parameter: 'location' },
    );
  }
  return id;
}

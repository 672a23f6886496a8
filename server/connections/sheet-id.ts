/**
 * Public tab ids for `/v1/sheets/{sheetId}`: `<spreadsheet_id>~<source sheet id>`.
 * Reversible (no lookup table) and stable across tab renames, because the source sheet id is (the xlsx
 * sheetId attribute, the Google sheetId). `~` is URL-safe and never appears in either id.
 */
export function toPublicSheetId(spreadsheetId: string, sourceSheetId: string): string {
  return `${spreadsheetId}~${sourceSheetId}`;
}

export function parsePublicSheetId(sheetId: string): { spreadsheetId: string; sourceSheetId: string } | null {
  const at = sheetId.lastIndexOf('~');
  if (at <= 0 || at === sheetId.length - 1) return null;
  return { spreadsheetId: sheetId.slice(0, at), sourceSheetId: sheetId.slice(at + 1) };
}

/**
 * Google's client libraries, loaded on first use: together they cost about 25 MB of memory, which a service
 * with no Google spreadsheet connected (the tray app's usual case) should not pay.
 */
import { createRequire } from 'node:module';

type SheetsModule = typeof import('@googleapis/sheets');
type DriveModule = typeof import('@googleapis/drive');
type AuthModule = typeof import('google-auth-library');

export interface GoogleLibraries {
  sheets: SheetsModule['sheets'];
  drive: DriveModule['drive'];
  OAuth2Client: AuthModule['OAuth2Client'];
}

const require = createRequire(import.meta.url);
let loaded: GoogleLibraries | undefined;

export function googleLibraries(): GoogleLibraries {
  loaded ??= {
    sheets: (require('@googleapis/sheets') as SheetsModule).sheets,
    drive: (require('@googleapis/drive') as DriveModule).drive,
    OAuth2Client: (require('google-auth-library') as AuthModule).OAuth2Client,
  };
  return loaded;
}

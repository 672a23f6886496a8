/**
 * The Source contract (contract.ts) for the google kind, opened through the registry and talking over HTTP to the
 * Sheets/Drive fake. Another user's edit goes through Google's own clients; Google has no lock, so `lock` is
 * omitted; a vanished spreadsheet is a file deleted through Drive.
 */
import { openSource } from '../../../server/sources/index.ts';
import { startGoogleAccount } from '../../helpers/google.ts';
import { type ContractFactory, sourceContract } from '../contract.ts';

const POLL_MS = 50;

const googleFactory: ContractFactory = {
  name: 'google (Sheets fake over HTTP)',
  async create(header, rows) {
    const account = await startGoogleAccount();
    const id = await account.createSpreadsheet('People', header, rows);
    const source = openSource(
      { sourceKind: 'google', location: id },
      account.options({ pollMs: POLL_MS, google: { maxAgeMs: POLL_MS } }),
    );
    return {
      source,
      sheetId: (await source.read()).tabs[0]!.sourceSheetId,
      async editOutside(h, r) {
        await account.replaceContent(id, h, r);
        // The version answers from the last Drive check; past maxAgeMs the next version() asks Drive again.
        await new Promise((resolve) => setTimeout(resolve, POLL_MS * 4));
      },
      remove: async () => {
        await account.drive.files.delete({ fileId: id });
      },
      async dispose() {
        await source.close();
        await account.close();
      },
    };
  },
};

sourceContract(googleFactory);

// npm run replay:google -- DIR — replays every recording in DIR against a fresh fake each;
// prints one line per mismatch and `replay: N of M recordings match` last; exits 1 if N < M.
import { replayDirectory } from './replay.ts';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: npm run replay:google -- DIR');
  process.exit(2);
}
const { results, matched, total } = await replayDirectory(dir);
for (const result of results) if (result.mismatch) console.log(`MISMATCH ${result.name}: ${result.mismatch}`);
console.log(`replay: ${matched} of ${total} recordings match`);
process.exitCode = matched < total ? 1 : 0;

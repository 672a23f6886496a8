/**
 * Writes through a Source as its owner makes them: `Source.write` takes the writes of one turn and settles each.
 * `writeOne` hands over a turn of one write (its result, or its error thrown); `writeTogether` hands over several
 * as one turn, which a local file saves in one replace (group commit).
 */
import type {
  Mutation,
  Source,
  SourceWrite,
  WriteOptions,
  WriteResult,
} from '../../server/sources/source.ts';

export async function writeOne(
  source: Pick<Source, 'write'>,
  sourceSheetId: string,
  mutations: Mutation[],
  options: WriteOptions,
): Promise<WriteResult> {
  const [outcome] = await source.write([{ sourceSheetId, mutations, options }]);
  if (!outcome) throw new Error('The source answered no write');
  if (outcome.status === 'rejected') throw outcome.reason;
  return outcome.value;
}

export function writeTogether(
  source: Pick<Source, 'write'>,
  writes: SourceWrite[],
): Promise<PromiseSettledResult<WriteResult>[]> {
  return source.write(writes);
}

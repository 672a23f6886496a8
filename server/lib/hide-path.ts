/**
 * A folder's absolute path taken out of a text a client will read: an error message or detail that quotes a file
 * of the data dir (a lock, the secrets file, a backup) says `<data dir>/secrets.json` instead, so no answer tells
 * a caller where the service keeps its data. Messages are worded without paths in the first place; this is the
 * safety net for one that slips through, such as an operating system's error quoted as a reason.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';

export const HIDDEN_DIR = '<data dir>';

/** A character that can continue a path's name: an occurrence next to one is part of another path. */
function continuesName(char: string | undefined): boolean {
  return char !== undefined && /[\w.~-]/.test(char);
}

/** `text` with each whole occurrence of `dir` (not a part of a longer name) written `word`. */
function replaceDir(text: string, dir: string, word: string): string {
  let out = '';
  let copied = 0;
  for (let at = text.indexOf(dir); at !== -1; at = text.indexOf(dir, at + 1)) {
    const before = text[at - 1];
    const whole = !continuesName(before) && before !== '/' && before !== '\\';
    if (!whole || continuesName(text[at + dir.length]) || at < copied) continue;
    out += text.slice(copied, at) + word;
    copied = at + dir.length;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function withoutTrailingSeparators(dir: string): string {
  let end = dir.length;
  while (end > 0 && (dir[end - 1] === '/' || dir[end - 1] === '\\')) end--;
  return dir.slice(0, end);
}

/** The spellings of `dir` a message may hold: as given, resolved, and with its links followed. */
function spellingsOf(dir: string): string[] {
  const spellings = new Set([dir, path.resolve(dir)]);
  try {
    spellings.add(realpathSync(dir));
  } catch {
    // Not there (yet): only the spellings above can be quoted.
  }
  // A root folder would match every path; the longest spelling first, so a shorter one never cuts it.
  return [...spellings]
    .map(withoutTrailingSeparators)
    .filter((s) => s.length > 1)
    .sort((a, b) => b.length - a.length);
}

/** What marks a text as cut short (redact-secrets.ts `excerpt`). */
const CUT = '…';

/** `text` without the head of a spelling (two characters or more) it was cut in, just before its `…`. */
function withoutCutHead(text: string, spellings: readonly string[]): string {
  if (!text.endsWith(CUT)) return text;
  const body = text.slice(0, -CUT.length);
  for (const spelling of spellings) {
    for (let length = Math.min(spelling.length - 1, body.length); length >= 2; length--) {
      if (body.endsWith(spelling.slice(0, length))) return `${body.slice(0, -length)}${CUT}`;
    }
  }
  return text;
}

/**
 * A function that writes `dir` (in any of its spellings) as `<data dir>` in a text, and drops the head of one at
 * the end of a text cut short, so an excerpt never shows part of the path either.
 */
export function pathHider(dir: string): (text: string) => string {
  const spellings = spellingsOf(dir);
  return (text) =>
    withoutCutHead(
      spellings.reduce((out, spelling) => replaceDir(out, spelling, HIDDEN_DIR), text),
      spellings,
    );
}

/**
 * A filter that lets a substring search skip most of a long text: the text is cut into blocks of BLOCK_CHARS
 * characters, and each block keeps a 2,048-bit set of the (hashed) three-character sequences that start in it.
 * A needle can only occur where every one of its trigrams is present, so blocks missing one are never
 * scanned. It only says where to look (a hash can collide, so a block may be a false candidate); the scan
 * itself decides. A quarter of a byte per character of text (a million 8-digit ids: 2 MB).
 */

import { runNow, type Steps } from '../lib/steps.ts';

export const BLOCK_CHARS = 1024;
const LOG_BITS = 11;
const WORDS = (1 << LOG_BITS) / 32;
/** Shorter texts are scanned whole: the filter would save microseconds. */
const MIN_TEXT = 1 << 16;
/** Trigrams of the needle that are checked: the first ones (all of them start within the next block). */
const MAX_TRIGRAMS = 16;

export interface TrigramBlocks {
  /** WORDS words per block; null when the text is short enough to scan whole. */
  bits: Uint32Array | null;
}

function trigram(a: number, b: number, c: number): number {
  const h = Math.imul(((a << 16) | b) ^ Math.imul(c, 0x9e3779b1), 0x85ebca6b);
  return (h ^ (h >>> 15)) >>> (32 - LOG_BITS);
}

/** Characters the build reads between two steps (lib/steps.ts). */
const STEP_CHARS = 1 << 20;

export function buildTrigramBlocks(text: string): TrigramBlocks {
  return runNow(trigramBlockSteps(text));
}

/** `buildTrigramBlocks`, a step at a time. */
export function* trigramBlockSteps(text: string): Steps<TrigramBlocks> {
  if (text.length < MIN_TEXT) return { bits: null };
  const bits = new Uint32Array(Math.ceil(text.length / BLOCK_CHARS) * WORDS);
  let a = text.charCodeAt(0);
  let b = text.charCodeAt(1);
  for (let p = 0; p + 2 < text.length; p++) {
    if ((p & (STEP_CHARS - 1)) === STEP_CHARS - 1) yield;
    const c = text.charCodeAt(p + 2);
    const t = trigram(a, b, c);
    bits[((p / BLOCK_CHARS) | 0) * WORDS + (t >>> 5)]! |= 1 << (t & 31);
    a = b;
    b = c;
  }
  return { bits };
}

/**
 * Calls `scan(start, end)` for each run of text positions, ascending, where `needle` may begin: every
 * occurrence of the needle in the text begins in one of them.
 */
export function candidateRanges(
  blocks: TrigramBlocks,
  textLength: number,
  needle: string,
  scan: (start: number, end: number) => void,
): void {
  const { bits } = blocks;
  if (bits === null || needle.length < 3) {
    scan(0, textLength);
    return;
  }
  const words: number[] = [];
  const masks: number[] = [];
  for (let i = 0; i + 2 < needle.length && i < MAX_TRIGRAMS; i++) {
    const t = trigram(needle.charCodeAt(i), needle.charCodeAt(i + 1), needle.charCodeAt(i + 2));
    words.push(t >>> 5);
    masks.push(1 << (t & 31));
  }
  const blockCount = bits.length / WORDS;
  let runStart = -1;
  for (let block = 0; block < blockCount; block++) {
    // An occurrence beginning in this block has its first trigrams here or in the next block.
    const here = block * WORDS;
    const next = block + 1 < blockCount ? here + WORDS : here;
    let candidate = true;
    for (let k = 0; k < words.length; k++) {
      if (((bits[here + words[k]!]! | bits[next + words[k]!]!) & masks[k]!) === 0) {
        candidate = false;
        break;
      }
    }
    if (candidate) {
      if (runStart < 0) runStart = block;
    } else if (runStart >= 0) {
      scan(runStart * BLOCK_CHARS, block * BLOCK_CHARS);
      runStart = -1;
    }
  }
  if (runStart >= 0) scan(runStart * BLOCK_CHARS, textLength);
}

/** `1 row`, `2 rows`, `0 rows`: a count with its noun in the right number (`plural` for irregular nouns). */
export function quantity(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

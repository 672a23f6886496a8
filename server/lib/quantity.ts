/** `1 row`, `2 rows`, `0 rows`: a count with its noun in the right number (`plural` for irregular nouns). */
export function quantity(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/**
 * `1,048,576`: a whole number with its thousands grouped, as en-US writes it. By hand rather than
 * `toLocaleString`, whose first call in a process loads ICU's number data (15-40 ms), which an error message
 * such as a full sheet's 409 would otherwise wait for.
 */
export function grouped(n: number): string {
  const digits = String(Math.trunc(Math.abs(n)));
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ',';
    out += digits[i];
  }
  return n < 0 && out !== '0' ? `-${out}` : out;
}

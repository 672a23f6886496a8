// Colours come back as Google stores them: 8 bits per channel, printed as float32, zero
// channels omitted (proto3 drops defaults). 0.5 is stored as 127/255 = 0.49803922.

function float32Text(x: number): number {
  const f = Math.fround(x);
  for (let digits = 1; digits <= 9; digits++) {
    const candidate = Number(f.toPrecision(digits));
    if (Math.fround(candidate) === f) return candidate;
  }
  return f;
}

export function storedColor(input: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (!input || typeof input !== 'object') return out;
  for (const channel of ['red', 'green', 'blue', 'alpha'] as const) {
    const value = (input as Record<string, unknown>)[channel];
    if (typeof value !== 'number' || value === 0) continue;
    const byte = Math.floor(Math.min(Math.max(value, 0), 1) * 255 + 0.5 - 1e-9);
    if (byte !== 0) out[channel] = float32Text(byte / 255);
  }
  return out;
}

/** A ColorStyle ({rgbColor} or {themeColor}); an empty style clears the colour. */
export function storedColorStyle(input: unknown): Record<string, unknown> | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const style = input as Record<string, unknown>;
  if (typeof style.themeColor === 'string') return { themeColor: style.themeColor };
  if (style.rgbColor && typeof style.rgbColor === 'object') return { rgbColor: storedColor(style.rgbColor) };
  return undefined;
}

/** The binary PPM images the layer writes (WARPTRACE_IMAGE), read and compared by the layer tests. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

export interface Ppm {
  readonly width: number;
  readonly height: number;
  readonly maxValue: number;
  readonly pixels: Uint8Array;
}

/** A binary PPM (P6): header tokens separated by whitespace (and # comments), one whitespace byte, then the pixels. */
export function readPpm(path: string): Ppm {
  const bytes = new Uint8Array(readFileSync(path));
  let at = 0;
  const token = (): string => {
    for (;;) {
      while (at < bytes.length && /\s/.test(String.fromCharCode(bytes[at]!))) at++;
      if (bytes[at] !== 0x23) break;
      while (at < bytes.length && bytes[at] !== 0x0a) at++;
    }
    const start = at;
    while (at < bytes.length && !/\s/.test(String.fromCharCode(bytes[at]!))) at++;
    return String.fromCharCode(...bytes.subarray(start, at));
  };
  const magic = token();
  assert.equal(magic, 'P6', `${path}: a binary PPM`);
  const width = Number(token());
  const height = Number(token());
  const maxValue = Number(token());
  assert.ok(Number.isInteger(width) && width > 0 && Number.isInteger(height) && height > 0, `${path}: size ${width} x ${height}`);
  assert.ok(maxValue > 0 && maxValue < 256, `${path}: max value ${maxValue} (one byte per channel)`);
  at++; // the single whitespace byte before the pixels
  const pixels = bytes.subarray(at);
  assert.equal(pixels.length, width * height * 3, `${path}: ${width} x ${height} RGB pixels`);
  return { width, height, maxValue, pixels };
}

/** Two images byte for byte the same, and not one flat colour (a blank frame would compare equal to anything blank). */
export function assertSameImage(a: string, b: string, what: string): void {
  const x = readPpm(a);
  const y = readPpm(b);
  assert.deepEqual([x.width, x.height, x.maxValue], [y.width, y.height, y.maxValue], `${what}: same size`);
  let differ = 0;
  for (let i = 0; i < x.pixels.length; i++) if (x.pixels[i] !== y.pixels[i]) differ++;
  assert.equal(differ, 0, `${what}: ${differ} of ${x.pixels.length} bytes differ`);
  let lit = 0;
  for (let i = 0; i < x.pixels.length; i++) if (x.pixels[i] !== x.pixels[0]) lit++;
  assert.ok(lit > 0, `${what}: the frame shows something (not one flat colour)`);
}

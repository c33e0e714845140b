/** The screen exports' PNG: fast-png, RGB, the legend in a text chunk. */
import { encode } from 'fast-png';

/** An RGB PNG of opaque RGBA pixels, the legend in its Description text chunk. */
export function encodePng(width: number, height: number, rgba: Uint8ClampedArray, legend: string): Uint8Array {
  const rgb = new Uint8Array(width * height * 3);
  for (let p = 0, q = 0; q < rgb.length; p += 4, q += 3) {
    rgb[q] = rgba[p]!;
    rgb[q + 1] = rgba[p + 1]!;
    rgb[q + 2] = rgba[p + 2]!;
  }
  return encode({ width, height, data: rgb, channels: 3, depth: 8, text: { Description: latin1(legend), Software: 'warptrace' } });
}

/** PNG text chunks hold Latin-1: arrows become "->", anything else outside it "?". */
function latin1(text: string): string {
  return text.replace(/→/g, '->').replace(/[^\u0020-\u007e\u00a0-\u00ff]/g, '?');
}

/** Reads a CSS-px rectangle of a canvas back as RGBA bytes (tests and screenshots). */
export function readCanvasPixels(canvas: HTMLCanvasElement, cssWidth: number, x: number, y: number, width: number, height: number): Uint8ClampedArray {
  const dpr = canvas.width / Math.max(1, cssWidth);
  const c = document.createElement('canvas');
  c.width = Math.max(1, Math.round(width * dpr));
  c.height = Math.max(1, Math.round(height * dpr));
  const ctx = c.getContext('2d')!;
  ctx.drawImage(canvas, x * dpr, y * dpr, width * dpr, height * dpr, 0, 0, c.width, c.height);
  return ctx.getImageData(0, 0, c.width, c.height).data;
}

/**
 * Where a tooltip goes: below and right of the pointer, flipped to the left
 * of it when it would run past the right edge, above it when it would run
 * past the bottom, and kept inside the area when it is larger than either side.
 */
export interface TooltipBox {
  readonly left: number;
  readonly top: number;
}

/** @param offset px between the pointer and the tooltip's near corner. */
export function placeTooltip(pointerX: number, pointerY: number, width: number, height: number, areaWidth: number, areaHeight: number, offset = 14): TooltipBox {
  const place = (at: number, size: number, area: number) => {
    let p = at + offset;
    if (p + size > area) p = at - offset - size;
    return Math.max(0, Math.min(p, area - size));
  };
  return { left: place(pointerX, width, areaWidth), top: place(pointerY, height, areaHeight) };
}

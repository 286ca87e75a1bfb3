/**
 * The viewer's layouts and framing, as pure functions of the window and the character's box (no
 * DOM, so they are tested in Node): where each method's view goes, which layout gives the
 * character most room, and how far the camera stands to fit a box in a view.
 *
 * @module
 */
import { Box3, Vector3 } from 'three';

/** How the method views share the window: chosen for the window and character, a row, a 2×2 grid, or one view. */
export type Layout = 'auto' | 'side' | 'grid' | 'single';

/** A view's rectangle in CSS pixels from the canvas's top-left corner. */
export interface Cell {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * The rectangles of `count` views in a `width`×`height` canvas: a row (`side`), rows of two
 * (`grid`, 2×2 for four), or the whole canvas (`single`, one view). Whole pixels, no overlap.
 */
export function layoutCells(layout: Exclude<Layout, 'auto'>, count: number, width: number, height: number): Cell[] {
  if (count <= 0) return [];
  if (layout === 'single' || count === 1) return [{ x: 0, y: 0, w: width, h: height }];
  const columns = layout === 'side' ? count : Math.ceil(Math.sqrt(count));
  const rows = Math.ceil(count / columns);
  const w = Math.floor(width / columns);
  const h = Math.floor(height / rows);
  return Array.from({ length: count }, (_, k) => ({ x: (k % columns) * w, y: Math.floor(k / columns) * h, w, h }));
}

/** The default direction from the character to the camera: a three-quarter view from the front right, a little above (glTF: +z front, +y up). */
export const THREE_QUARTER = new Vector3(0.7, 0.3, 1).normalize();

/**
 * The camera distance from the box's centre, along the unit `direction` (centre → camera), at
 * which every corner of `box` falls inside a view of vertical field of view `fovDegrees` and
 * `aspect` (width ÷ height), with `margin` (1.12: a 12% border).
 */
export function fitDistance(box: Box3, direction: Vector3, fovDegrees: number, aspect: number, margin = 1.12): number {
  const d = direction.clone().normalize();
  const up = Math.abs(d.y) > 0.99 ? new Vector3(0, 0, -1) : new Vector3(0, 1, 0);
  const right = new Vector3().crossVectors(up, d).normalize();
  const camUp = new Vector3().crossVectors(d, right);
  const tanV = Math.tan((fovDegrees * Math.PI) / 360);
  const tanH = tanV * aspect;
  const center = box.getCenter(new Vector3());
  let distance = 0;
  const c = new Vector3();
  for (let k = 0; k < 8; k++) {
    c.set(k & 1 ? box.max.x : box.min.x, k & 2 ? box.max.y : box.min.y, k & 4 ? box.max.z : box.min.z).sub(center);
    const x = Math.abs(c.dot(right)), y = Math.abs(c.dot(camUp)), z = c.dot(d); // prettier-ignore
    distance = Math.max(distance, z + (margin * x) / tanH, z + (margin * y) / tanV);
  }
  return distance || 1;
}

/**
 * The layout that shows the character largest (pixels per unit length when fitted) among a row
 * and a 2×2 grid of `count` views; one view in windows under 560 px wide.
 */
export function autoLayout(
  box: Box3,
  count: number,
  width: number,
  height: number,
  fovDegrees: number,
): Exclude<Layout, 'auto'> {
  if (count <= 1 || width < 560) return 'single';
  const scale = (layout: 'side' | 'grid') => {
    const { w, h } = layoutCells(layout, count, width, height)[0];
    return h / fitDistance(box, THREE_QUARTER, fovDegrees, w / Math.max(1, h));
  };
  return scale('side') >= scale('grid') ? 'side' : 'grid';
}

/**
 * The viewer's layout and framing functions (viewer/layout.ts), against analytic cases: the cells
 * of each layout tile the canvas, the fitted distance puts a box's extreme corner exactly on the
 * view's border (margin 1), and the automatic layout picks the one that draws a box larger.
 */
import { Box3, PerspectiveCamera, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { autoLayout, fitDistance, layoutCells, THREE_QUARTER } from '../viewer/layout.js';

describe('viewer layouts', () => {
  it('cells: a row, a 2×2 grid, one view; none for no views', () => {
    expect(layoutCells('side', 4, 1600, 400).map((c) => [c.x, c.y, c.w, c.h])).toEqual([
      [0, 0, 400, 400],
      [400, 0, 400, 400],
      [800, 0, 400, 400],
      [1200, 0, 400, 400],
    ]);
    expect(layoutCells('grid', 4, 1001, 801).map((c) => [c.x, c.y, c.w, c.h])).toEqual([
      [0, 0, 500, 400],
      [500, 0, 500, 400],
      [0, 400, 500, 400],
      [500, 400, 500, 400],
    ]);
    expect(layoutCells('single', 4, 640, 480)).toEqual([{ x: 0, y: 0, w: 640, h: 480 }]);
    expect(layoutCells('grid', 0, 640, 480)).toEqual([]);
  });

  it('fitDistance: the box just fills the view (margin 1), its farthest projected corner on the border', () => {
    const box = new Box3(new Vector3(-0.3, -1, -0.2), new Vector3(0.5, 0.9, 0.4));
    for (const [direction, aspect] of [
      [new Vector3(0, 0, 1), 0.5],
      [THREE_QUARTER, 1.6],
      [new Vector3(-1, 0.5, -0.2), 1],
    ] as const) {
      const distance = fitDistance(box, direction, 40, aspect, 1);
      // Brute force: three.js's own camera there, every corner projected.
      const camera = new PerspectiveCamera(40, aspect, 0.001, 100);
      const center = box.getCenter(new Vector3());
      camera.position.copy(center).addScaledVector(direction.clone().normalize(), distance);
      camera.lookAt(center);
      camera.updateMatrixWorld();
      let extent = 0;
      for (let k = 0; k < 8; k++) {
        const p = new Vector3(
          k & 1 ? box.max.x : box.min.x,
          k & 2 ? box.max.y : box.min.y,
          k & 4 ? box.max.z : box.min.z,
        );
        p.project(camera);
        extent = Math.max(extent, Math.abs(p.x), Math.abs(p.y));
      }
      expect(extent).toBeCloseTo(1, 9);
    }
  });

  it('autoLayout: a standing figure in a wide window gets a row, a lying one a grid; narrow windows one view', () => {
    const standing = new Box3(new Vector3(-0.3, 0, -0.2), new Vector3(0.3, 1.8, 0.2));
    const lying = new Box3(new Vector3(-0.9, 0, -0.2), new Vector3(0.9, 0.5, 0.2));
    expect(autoLayout(standing, 4, 1600, 600, 40)).toBe('side');
    expect(autoLayout(lying, 4, 1200, 900, 40)).toBe('grid');
    expect(autoLayout(standing, 4, 500, 900, 40)).toBe('single');
  });
});

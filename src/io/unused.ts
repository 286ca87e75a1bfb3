/**
 * Letting go of glTF properties: an accessor a primitive, skin or sampler no longer uses is
 * disposed of, so no unused object is written (the glTF validator's UNUSED_OBJECT).
 *
 * @module
 */
import type { Property } from '@gltf-transform/core';

/**
 * Disposes of `property` where nothing but the document's root still holds it (an accessor that a
 * primitive, skin or sampler has just let go of); does nothing for null or undefined.
 */
export function disposeIfUnused(property: Property | null | undefined): void {
  if (property && property.listParents().length <= 1) property.dispose();
}

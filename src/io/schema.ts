/**
 * The names under which corskin stores its data in glTF: vertex attributes and extras keys, in
 * one dependency-free module, imported by the file formats (`io/`), by `corskin/three` (which
 * reads them as three.js's GLTFLoader names them) and by the viewer — so that reading a skin loads
 * no method's code, and no key is spelt twice.
 *
 * @module
 */

/** Vertex attribute of the centers of rotation (Le & Hodgins 2016), VEC3 float, bind space. */
export const COR_ATTRIBUTE = '_CENTER_OF_ROTATION';
/** Primitive extras key of the Direct Delta Mush parameters (its `_DDM_*` attributes hold the data). */
export const DDM_EXTRAS_KEY = 'corskinDeltaMush';
/** Node extras key of a cage written by corskin (`bind-cage`, `templates build`). */
export const CAGE_EXTRAS_KEY = 'corskinCage';
/** Primitive extras key naming the cage a skin primitive is bound to. */
export const CAGE_BINDING_EXTRAS_KEY = 'corskinCageBinding';

/** Node extras of a helper joint a bake added: `{ corskin: { helperOf: <its joint's name> } }`. */
export function helperJointExtras(joint: string): Record<string, unknown> {
  return { corskin: { helperOf: joint } };
}

/** Whether node extras mark a helper joint a bake added ({@link helperJointExtras}). */
export function isHelperJointExtras(extras: unknown): boolean {
  const corskin = (extras as { corskin?: unknown } | null | undefined)?.corskin;
  return !!corskin && typeof corskin === 'object' && typeof (corskin as { helperOf?: unknown }).helperOf === 'string';
}

/** {@link COR_ATTRIBUTE} as three.js's GLTFLoader names it. */
export const COR_ATTRIBUTE_THREE = '_center_of_rotation';

/** Whether node extras mark a cage written by corskin (they carry {@link CAGE_EXTRAS_KEY}). */
export function isCageExtras(extras: unknown): boolean {
  return (
    !!extras && typeof extras === 'object' && typeof (extras as Record<string, unknown>)[CAGE_EXTRAS_KEY] === 'object'
  );
}

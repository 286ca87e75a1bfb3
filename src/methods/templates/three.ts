/**
 * Skinning templates on the GPU for three.js (Ju, Zhou, van de Panne, Cohen-Or, Neumann, "Reusable
 * Skinning Templates Using Cage-based Deformations", ACM TOG 27(5), SIGGRAPH Asia 2008): the rig of
 * a `SkinnedMesh` (stored by `corskin templates build`, or built on a Web Worker), its binding
 * packed for the vertex shader, and the posed cage uploaded per frame.
 *
 * The vertex shader evaluates the templates as a corrective over dual quaternion skinning (see
 * the rig's module comment), `x′ = C(DQS(x))` with `C = normalise((1 − Σ_k w_k)·1̂ + Σ_k w_k·ĉ_k)`
 * (dual quaternions), from two float RGBA textures:
 *
 * - the **binding** texture, per vertex a run of texels (`corskinTemplateRange`: first texel,
 *   texel count), each holding two entries (cage vertex, weight); none for skin the templates
 *   leave to DQS;
 * - the **cage** texture, two texels per cage vertex: its correction, the rigid motion from where
 *   DQS puts it to where its template puts it, as a unit dual quaternion ({@link CageCorrection},
 *   computed on the CPU each frame, a few hundred vertices).
 *
 * Per vertex the shader blends its entries' dual quaternions with the identity (for the share left
 * to DQS), normalises, and applies the result to the DQS-skinned position and normal — as the CPU
 * deformer does.
 *
 * @module
 */
import { BufferAttribute, PropertyBinding, type DataTexture, type Object3D, type SkinnedMesh } from 'three';
import type { CageBinding } from '../../cage/bind.js';
import { CorskinError } from '../../core/errors.js';
import { CAGE_BINDING_EXTRAS_KEY, CAGE_EXTRAS_KEY, isHelperJointExtras } from '../../io/schema.js';
import { mergeSkinnedMeshes, type SkinnedMesh as CorskinMesh } from '../../core/mesh.js';
import type { SkinningOptions } from '../../three/index.js';
import { attributeValues, meshFromGeometry } from '../../three/geometry.js';
import { dataTexture, STATE_KEY, TEXTURE_WIDTH, type GpuMethod } from '../../three/kernel.js';
import { TEMPLATES_GLSL } from './three-glsl.js';
import { skinOutsideMessage, templateSkinOutside } from './outside.js';
import { buildTemplateRigOnWorker } from './web-worker.js';
import { createSkeleton, type Skeleton } from '../../core/skeleton.js';
import { createCageCorrection, type CageCorrection } from './deformer.js';
import { setBoneTemplate } from './edit.js';
import type { TemplateRig } from './rig.js';
import { templateRigPart } from './rig-parts.js';
import { restoreTemplateRig, type StoredTemplates } from './stored.js';

/** The extras key (GLTFLoader: `userData`) of a cage node written by `corskin templates build`. */
const CAGE_KEY = CAGE_EXTRAS_KEY;
/** The primitive extras key (GLTFLoader: geometry `userData`) naming the cage of a binding. */
const BINDING_KEY = CAGE_BINDING_EXTRAS_KEY;
/** Whether `object` is a cage node written by corskin (never skinned by templates; `useSkinningMethod` hides it). */
export function isCageObject(object: Object3D): boolean {
  return typeof object.userData?.[CAGE_KEY] === 'object';
}

/**
 * corskin's skeleton of a three.js skinned mesh, in the mesh's geometry (bind) space: parents from
 * the bone hierarchy, joint names as three names the bones, inverse bind matrices
 * `boneInverse · bindMatrix` (so skinning matrices are {@link bindSpaceSkinningMatrices}), the
 * bones' current local transforms as the rest pose and, for a bone whose parent is not one of the
 * skin's bones, the parent's world matrix as its pre-transform (read `matrixWorld` as it is: call
 * `updateMatrixWorld` first).
 */
export function skeletonFromThree(mesh: SkinnedMesh): Skeleton {
  const bones = mesh.skeleton.bones;
  const J = bones.length;
  const ibm = new Float64Array(16 * J), pre = new Float64Array(16 * J); // prettier-ignore
  const t = new Float64Array(3 * J), r = new Float64Array(4 * J), s = new Float64Array(3 * J); // prettier-ignore
  const parents = bones.map((b) => bones.indexOf(b.parent as (typeof bones)[number]));
  bones.forEach((b, j) => {
    ibm.set(mesh.skeleton.boneInverses[j].clone().multiply(mesh.bindMatrix).elements, 16 * j);
    pre.set(
      parents[j] < 0 && b.parent ? b.parent.matrixWorld.elements : [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
      16 * j,
    );
    t.set(b.position.toArray(), 3 * j);
    r.set(b.quaternion.toArray(), 4 * j);
    s.set(b.scale.toArray(), 3 * j);
  });
  return createSkeleton({
    jointNames: bones.map((b) => b.name),
    parents,
    inverseBindMatrices: ibm,
    preTransforms: pre,
    restTranslations: t,
    restRotations: r,
    restScales: s,
    // GLTFLoader keeps node extras as userData: a bake's helper joints are marked there.
    helpers: Uint8Array.from(bones, (b) => (isHelperJointExtras(b.userData) ? 1 : 0)),
  });
}

/**
 * The cage node under `root` written for `mesh` (a corskin cage skinned by the same bones, named by
 * the geometry's `corskinCageBinding` extras when the file has them), if any; undefined for a mesh
 * whose geometry carries no cage binding.
 */
export function cageObjectOf(root: Object3D, mesh: SkinnedMesh): SkinnedMesh | undefined {
  if (!mesh.geometry.getAttribute('_cage_indices_0')) return undefined;
  const id = mesh.geometry.userData?.[BINDING_KEY] as unknown;
  const bones = mesh.skeleton.bones;
  let cage: SkinnedMesh | undefined;
  root.traverse((o) => {
    const c = o as SkinnedMesh;
    if (
      !cage &&
      c.isSkinnedMesh &&
      isCageObject(c) &&
      (id === undefined || (c.userData[CAGE_KEY] as { id?: unknown }).id === id) &&
      c.skeleton.bones.length === bones.length &&
      c.skeleton.bones.every((b, j) => b === bones[j])
    )
      cage = c;
  });
  return cage;
}

/**
 * The template rig stored for `mesh` by `corskin templates build` (the cage node under `root`
 * skinned by the same bones, and the geometry's `_cage_indices_n`/`_cage_weights_n` binding), or
 * undefined when `root` holds none.
 * @throws CorskinError naming the mesh for an incomplete or inconsistent stored rig
 */
export function storedTemplateRig(root: Object3D, mesh: SkinnedMesh): TemplateRig | undefined {
  const cage = cageObjectOf(root, mesh);
  return cage && templateRigFromCage(cage, mesh);
}

/**
 * {@link storedTemplateRig} from the cage node found for the mesh ({@link cageObjectOf}).
 * @throws CorskinError naming the mesh for an incomplete or inconsistent stored rig
 */
export function templateRigFromCage(cage: SkinnedMesh, mesh: SkinnedMesh): TemplateRig | undefined {
  const bones = mesh.skeleton.bones;
  const info = cage.userData[CAGE_KEY] as {
    templates?: StoredTemplates;
    influences?: number;
    coordinates?: string;
    resolution?: number;
  };
  if (!info.templates) return undefined;
  const where = mesh.name || 'SkinnedMesh';
  const k = Number(info.influences);
  const g = mesh.geometry;
  const n = g.getAttribute('position').count;
  const binding: CageBinding = {
    method: info.coordinates === 'mvc' ? 'mvc' : 'pmvc',
    resolution: Number(info.resolution) || 0,
    influences: k,
    indices: new Uint32Array(k * n),
    weights: new Float32Array(k * n),
  };
  for (let q = 0; q < Math.ceil(k / 4); q++) {
    const idx = g.getAttribute(`_cage_indices_${q}`);
    const wgt = g.getAttribute(`_cage_weights_${q}`);
    if (!idx || !wgt)
      throw new CorskinError(`the geometry lacks the cage binding _CAGE_INDICES_${q}/_CAGE_WEIGHTS_${q}`, where);
    for (let i = 0; i < n; i++)
      for (let c = 0; c < 4 && 4 * q + c < k; c++) {
        binding.indices[k * i + 4 * q + c] = idx.getComponent(i, c);
        binding.weights[k * i + 4 * q + c] = wgt.getComponent(i, c);
      }
  }
  const pos = cage.geometry.getAttribute('position');
  const index = cage.geometry.getIndex();
  if (!index) throw new CorskinError('the cage mesh has no triangles', where);
  const positions = attributeValues(pos, Float64Array);
  const skinIndex = cage.geometry.getAttribute('skinIndex'), skinWeight = cage.geometry.getAttribute('skinWeight'); // prettier-ignore
  if (!skinIndex || !skinWeight) throw new CorskinError('the cage mesh has no skinning attributes', where);
  const cageSkin = {
    joints: attributeValues(skinIndex, Uint32Array),
    weights: attributeValues(skinWeight, Float32Array),
  };
  return restoreTemplateRig(
    info.templates,
    {
      // three names objects after glTF nodes without reserved characters (':' of mixamorig:Hips).
      jointIndex: (name) => bones.findIndex((b) => b.name === PropertyBinding.sanitizeNodeName(name)),
      cage: { positions, triangles: Uint32Array.from(index.array) },
      binding,
      cageSkin,
    },
    where,
  );
}

/**
 * A template rig's binding packed for the vertex shader (see the module comment): per vertex
 * `range` (2·n: first texel, texel count) and its cage entries (cage vertex, weight), largest
 * weight first, two per RGBA texel of a {@link TEXTURE_WIDTH}-wide float texture; padding has
 * weight 0. A vertex the templates leave to DQS has no texel.
 * @throws CorskinError when the rig does not fit the skin or the entries overflow a 2048² texture
 */
export function packTemplateBinding(
  rig: TemplateRig,
  skin: CorskinMesh,
): {
  /** Per vertex its first texel and texel count, length 2·n. */
  range: Float32Array;
  /** The texels, two (cage vertex, weight) entries each, length 4·width·height. */
  data: Float32Array;
  /** Texture width in texels ({@link TEXTURE_WIDTH}). */
  width: number;
  /** Texture height in texels (at least 1). */
  height: number;
} {
  const n = skin.positions.length / 3;
  const k = rig.binding.influences;
  if (rig.binding.indices.length !== k * n)
    throw new CorskinError(
      `the template rig was built for ${rig.binding.indices.length / k} vertices, the mesh has ${n}`,
    );
  const entries: number[] = [];
  const range = new Float32Array(2 * n);
  for (let i = 0; i < n; i++) {
    const start = entries.length;
    range[2 * i] = start / 4;
    // Largest weights first: the shader's normals blend the first four entries' rotations.
    const slots: number[] = [];
    for (let s = k * i; s < k * i + k; s++) if (rig.binding.weights[s] !== 0) slots.push(s);
    slots.sort((a, b) => Math.abs(rig.binding.weights[b]) - Math.abs(rig.binding.weights[a]) || a - b);
    for (const s of slots) entries.push(rig.binding.indices[s], rig.binding.weights[s]);
    while ((entries.length - start) % 4) entries.push(0, 0);
    range[2 * i + 1] = (entries.length - start) / 4;
  }
  const texels = entries.length / 4;
  const width = TEXTURE_WIDTH;
  const height = Math.max(1, Math.ceil(texels / width));
  if (height > TEXTURE_WIDTH)
    throw new CorskinError(`the template binding needs ${texels} texels, more than a ${width}² texture holds`);
  const data = new Float32Array(4 * width * height);
  data.set(entries);
  return { range, data, width, height };
}

/** What a mesh skinned with templates keeps: its rig, the cage texture and the per-frame workspace. */
export interface TemplateGpuState {
  /** The template rig the mesh is skinned with. */
  rig: TemplateRig;
  /** Two texels per cage vertex: its correction as a unit dual quaternion, real part (w ≥ 0), then dual part. */
  cage: DataTexture;
  /** The packed binding ({@link packTemplateBinding}). */
  binding: DataTexture;
  /** Poses the cage per frame and computes each cage vertex's correction. */
  correction: CageCorrection;
}

/** The GPU state of a rig: its packed binding and an empty cage texture. */
export function createTemplateGpuState(
  rig: TemplateRig,
  skin: CorskinMesh,
): TemplateGpuState & { range: Float32Array } {
  const { range, data, width, height } = packTemplateBinding(rig, skin);
  const m = rig.cage.positions.length / 3;
  const rows = Math.max(1, Math.ceil((2 * m) / TEXTURE_WIDTH));
  return {
    rig,
    range,
    binding: dataTexture(data, width, height),
    cage: dataTexture(new Float32Array(4 * TEXTURE_WIDTH * rows), TEXTURE_WIDTH, rows),
    correction: createCageCorrection(rig),
  };
}

/**
 * Poses the rig's templates and its cage's DQS for the skinning matrices `S` (16·J, bind space)
 * and uploads each cage vertex's correction ({@link CageCorrection}) into the cage texture.
 */
export function updateTemplateCage(state: TemplateGpuState, S: Float64Array): void {
  state.correction.update(S);
  (state.cage.image.data as Float32Array).set(state.correction.dualQuaternions);
  state.cage.needsUpdate = true;
}

/** The `userData` key of a mesh's template rig (kept between switches). */
const RIG_KEY = 'corskinTemplates';

/** The template rig a mesh renders with (after switching it to skinning templates), or undefined. */
export function templateRigOf(mesh: SkinnedMesh): TemplateRig | undefined {
  return mesh.userData[RIG_KEY] as TemplateRig | undefined;
}

/**
 * Gives a mesh its template rig (a rebound one after moving cage vertices, say); the next switch
 * to skinning templates (`useSkinningMethod`) renders with it instead of reading or building one.
 */
export function setTemplateRig(mesh: SkinnedMesh, rig: TemplateRig): void {
  mesh.userData[RIG_KEY] = rig;
}

/**
 * Gives each mesh of a skin split into meshes its part of the skin's rig ({@link templateRigPart}):
 * `meshes` in the order their vertices were merged, `skins` corskin's view of each, the rig as is
 * for a skin of one mesh.
 */
export function setSkinTemplateRig(
  meshes: readonly SkinnedMesh[],
  skins: readonly CorskinMesh[],
  rig: TemplateRig,
): void {
  if (meshes.length === 1) return setTemplateRig(meshes[0], rig);
  let first = 0;
  meshes.forEach((m, k) => {
    const n = skins[k].positions.length / 3;
    setTemplateRig(m, templateRigPart(rig, first, n));
    first += n;
  });
}

/**
 * Switches the template at the joint named `joint` (a three.js bone name) to `id` of the library,
 * on every mesh under `object` whose template rig has that joint in a limb: the next render shows
 * it ({@link setBoneTemplate}).
 * @returns the number of meshes changed
 * @throws CorskinError for an id the library lacks or one of the wrong kind for the joint
 */
export function setSkinningTemplate(object: Object3D, joint: string, id: string): number {
  let changed = 0;
  object.traverse((o) => {
    const mesh = o as SkinnedMesh;
    const rig = mesh.isSkinnedMesh ? templateRigOf(mesh) : undefined;
    const j = rig ? mesh.skeleton.bones.findIndex((b) => b.name === joint) : -1;
    if (!rig || j < 0 || !rig.limbs.some((l) => l.chain.includes(j))) return;
    setBoneTemplate(rig, j, id);
    // The next render recomputes the cage even within the same frame (see `useSkinningMethod`).
    const state = mesh.userData[STATE_KEY] as { frame: number } | undefined;
    if (state) state.frame = -1;
    changed++;
  });
  return changed;
}

/**
 * Gives every mesh without a template rig one: the rig the file stores (warning of skin outside
 * it; the meshes of one stored cage share its cage, limbs and library), else one rig per skin —
 * built once on the skin's meshes merged, a part per mesh. Returns corskin's view of each mesh it
 * read, for {@link TEMPLATES_GPU}'s `bind`.
 */
async function prepareTemplateRigs(
  root: Object3D,
  meshes: SkinnedMesh[],
  options: SkinningOptions,
): Promise<Map<SkinnedMesh, CorskinMesh>> {
  const skins = new Map<SkinnedMesh, CorskinMesh>();
  const groups: { mesh: SkinnedMesh; skin: CorskinMesh; skeleton: Skeleton }[][] = [];
  const restored = new Map<Object3D, TemplateRig>(); // by cage node
  for (const mesh of meshes) {
    if (templateRigOf(mesh)) continue;
    const skin = meshFromGeometry(mesh);
    skins.set(mesh, skin);
    const cage = cageObjectOf(root, mesh);
    let stored = cage && templateRigFromCage(cage, mesh);
    if (cage && stored) {
      const same = restored.get(cage);
      if (same) stored = { ...stored, cage: same.cage, limbs: same.limbs, library: same.library };
      else restored.set(cage, stored);
      const outside = templateSkinOutside(stored, skin.positions);
      if (outside.length)
        (options.onWarning ?? ((_, message) => console.warn(`corskin: ${message}`)))(
          mesh,
          `${mesh.name || 'SkinnedMesh'}: ${skinOutsideMessage(outside)}`,
        );
      setTemplateRig(mesh, stored);
      continue;
    }
    const skeleton = skeletonFromThree(mesh);
    const part = { mesh, skin, skeleton };
    const group = groups.find(([g]) => sameSkin(g.mesh, g.skeleton, mesh, skeleton));
    if (group) group.push(part);
    else groups.push([part]);
  }
  const build =
    options.buildTemplates ??
    ((m: SkinnedMesh, skin: CorskinMesh, skeleton: Skeleton) =>
      buildTemplateRigOnWorker(skin, skeleton, undefined, {
        onProgress: (d, t) => options.onProgress?.(m, d, t, 'fitting and binding template cages'),
      }));
  await Promise.all(
    groups.map(async (group) => {
      const [{ mesh, skeleton }] = group;
      const skins = group.map((p) => p.skin);
      const rig = await build(mesh, skins.length > 1 ? mergeSkinnedMeshes(skins) : skins[0], skeleton);
      setSkinTemplateRig(
        group.map((p) => p.mesh),
        skins,
        rig,
      );
    }),
  );
  return skins;
}

/** Whether two meshes are parts of one skin: the same bones, the same bind-space inverse bind matrices. */
function sameSkin(a: SkinnedMesh, sa: Skeleton, b: SkinnedMesh, sb: Skeleton): boolean {
  const [ba, bb] = [a.skeleton.bones, b.skeleton.bones];
  if (ba.length !== bb.length || ba.some((bone, j) => bone !== bb[j])) return false;
  const [x, y] = [sa.inverseBindMatrices, sb.inverseBindMatrices];
  let scale = 0;
  for (let i = 0; i < x.length; i++) scale = Math.max(scale, Math.abs(x[i]));
  return x.every((v, i) => Math.abs(v - y[i]) <= 1e-9 * scale);
}

/**
 * Skinning templates in `corskin/three`: every mesh gets its rig first (stored, set with
 * {@link setTemplateRig}, or built: `options.buildTemplates`, default on a Web Worker), then its
 * binding texture and a cage texture the CPU refills each frame ({@link updateTemplateCage}).
 */
export const TEMPLATES_GPU: GpuMethod = {
  id: 'templates',
  glsl: TEMPLATES_GLSL,
  prepare: prepareTemplateRigs,
  async bind(mesh, _options, prepared) {
    const state = createTemplateGpuState(templateRigOf(mesh)!, (prepared as CorskinMesh) ?? meshFromGeometry(mesh));
    return {
      attributes: { corskinTemplateRange: new BufferAttribute(state.range, 2) },
      textures: { corskinCage: state.cage, corskinBinding: state.binding },
      update: (matrices) => updateTemplateCage(state, matrices),
    };
  },
};

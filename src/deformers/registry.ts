/**
 * The one registry of skinning methods: what each is, where it comes from, and what it runs on.
 * The CLI's choices and help, the quality benchmark, the SIMD factory, `corskin/three` and the
 * viewer read it; adding a method is its folder (`src/methods/<id>/`: deformer, parameters, what it
 * prepares, its glTF storage and GPU kernel where it has them) plus one entry here — a GPU kernel
 * is also listed in `GPU_KERNELS` and `TSL_KERNELS` of `corskin/three`.
 *
 * No deformers are imported here (the CLI reads the list at start-up); `deformers/index.ts`
 * maps the ids to their functions.
 *
 * @module
 */

import { DDM_PARAMETERS } from '../methods/ddm/parameters.js';
import { DELTA_MUSH_PARAMETERS } from '../methods/dm/parameters.js';
import type { MethodParameter } from '../methods/parameter.js';
import { TEMPLATE_PARAMETERS, TEMPLATES_METHOD_ID } from '../methods/templates/parameters.js';

/** A skinning method's descriptor. */
export interface MethodInfo<Id extends string = MethodId> {
  /** The method's id (CLI `--method`, report rows). */
  id: Id;
  /** Name in tables and the viewer. */
  label: string;
  /** The paper, by authors and year (see docs/references.md). */
  citation: string;
  /**
   * What the method precomputes per vertex and the file can store (`corskin precompute
   * --method …`): `centers` (centers of rotation, Le & Hodgins 2016), `ddm` (the Ω matrices of
   * Direct Delta Mush, Le & Lewis 2019), `templates` (the template cages and the skin's binding,
   * Ju et al. 2008), or null. A method module that precomputes has a `node.ts` in its folder
   * (`MethodPrecompute`), which that command loads.
   */
  precomputes: 'centers' | 'ddm' | typeof TEMPLATES_METHOD_ID | null;
  /** Needs rig data beyond the skinning matrices (a factory builds its deformer). */
  needsRig: boolean;
  /** Has a WebAssembly SIMD kernel (`createSimdDeformer`). */
  simd: boolean;
  /**
   * Runs on the GPU through `corskin/three` (`useSkinningMethod`): the method has a GPU kernel
   * (`GPU_KERNELS`, `TSL_KERNELS`; a test checks they agree).
   */
  gpu: boolean;
  /**
   * What the method uploads to a GPU beyond the mesh and its influences (Bittner et al. 2019's
   * accounting): floats per bone per frame, floats per vertex precomputed once.
   */
  floatsPerBone: number;
  /** Floats per vertex precomputed once (see {@link MethodInfo.floatsPerBone}). */
  floatsPerVertex: number;
  /**
   * The method's parameters as every surface offers them (the CLI adds an option per entry);
   * only for method modules (`src/methods/`), whose `prepare` reads them.
   */
  parameters?: readonly MethodParameter[];
  /**
   * A method module (`src/methods/<id>/`): every surface builds its deformer with `prepareMethod`;
   * `corskin/three` and the viewer run it on the CPU when it has no GPU kernel.
   */
  module?: boolean;
  /**
   * The method module adds a command group to the CLI (`commands.ts` in its folder, whose default
   * export adds it to the program): the templates' `corskin templates build|list`.
   */
  commands?: boolean;
}

/**
 * Every method, in report order. Upload costs: LBS a 3×4 matrix; DQS as corskin/three uploads
 * it, the 3×4 matrix and the rotation quaternion (the two-phase path for scaled and mirrored
 * rigs needs both; a rigid-only dual quaternion would be 8); SBS the matrix (for the run-time
 * center) and a quaternion; LMS the matrix and a quaternion (a vertex blends its joints'
 * logarithms relative to its pivot's transform); CoR the matrix and a quaternion per bone
 * and the center of rotation per vertex (Bittner et al. 2019 count 20 per bone with a full 4×4
 * matrix); stretch the matrix, a quaternion, the bind joint position and bone axis.
 */
export const SKINNING_METHODS = [
  { id: 'lbs', label: 'LBS', citation: 'Magnenat-Thalmann et al. 1988', precomputes: null, needsRig: false, simd: true, gpu: true, floatsPerBone: 12, floatsPerVertex: 0 },
  { id: 'dqs', label: 'DQS', citation: 'Kavan et al. 2008', precomputes: null, needsRig: false, simd: true, gpu: true, floatsPerBone: 16, floatsPerVertex: 0 },
  { id: 'sbs', label: 'SBS', citation: 'Kavan & Žára 2005', precomputes: null, needsRig: false, simd: true, gpu: false, floatsPerBone: 16, floatsPerVertex: 0 },
  { id: 'lms', label: 'LMS', citation: 'Alexa 2002', precomputes: null, needsRig: false, simd: true, gpu: false, floatsPerBone: 16, floatsPerVertex: 0 },
  { id: 'cor', label: 'CoR', citation: 'Le & Hodgins 2016', precomputes: 'centers', needsRig: false, simd: true, gpu: true, floatsPerBone: 16, floatsPerVertex: 3 },
  { id: 'ddm', label: 'DDM', citation: 'Le & Lewis 2019', precomputes: 'ddm', needsRig: false, simd: true, gpu: true, floatsPerBone: 12, floatsPerVertex: 60, parameters: DDM_PARAMETERS, module: true }, // a method module (src/methods/ddm); full variant: 10 per (vertex, joint) entry, ≈ 6 entries per vertex on the shared humanoids (compact: 10 + 2 per entry); corskin/three packs them in a float texture (12 floats per entry, 2 per vertex for the range)
  { id: 'dm', label: 'DM', citation: 'Mancewicz et al. 2014', precomputes: null, needsRig: true, simd: true, gpu: false, floatsPerBone: 12, floatsPerVertex: 0, parameters: DELTA_MUSH_PARAMETERS, module: true }, // a method module (src/methods/dm): prepared per mesh, nothing stored
  { id: 'stretch', label: 'Stretch', citation: 'Yang & Zhang 2006', precomputes: null, needsRig: true, simd: true, gpu: false, floatsPerBone: 22, floatsPerVertex: 0 },
  { id: 'cage', label: 'Cage', citation: 'Ju et al. 2008', precomputes: null, needsRig: true, simd: false, gpu: false, floatsPerBone: 12, floatsPerVertex: 48 }, // k = 24 cage vertices and weights; and 3 floats per cage vertex per frame
  { id: TEMPLATES_METHOD_ID, label: 'Templates', citation: 'Ju et al. 2008', precomputes: TEMPLATES_METHOD_ID, needsRig: true, simd: true, gpu: true, floatsPerBone: 16, floatsPerVertex: 50, parameters: TEMPLATE_PARAMETERS, module: true, commands: true }, // a method module (src/methods/templates); corskin/three: the joint texture as DQS, the binding run (k = 24 cage vertices and weights, and the range) per vertex; and 4 floats per cage vertex per frame (posed on the CPU)
] as const satisfies readonly MethodInfo<string>[]; // prettier-ignore

/** The id of every skinning method (CLI `--method`, report rows): the ids of {@link SKINNING_METHODS}. */
export type MethodId = (typeof SKINNING_METHODS)[number]['id'];

/** The methods that run on the GPU through `corskin/three`: those of {@link SKINNING_METHODS} with `gpu: true`. */
export type GpuMethodId = Extract<(typeof SKINNING_METHODS)[number], { gpu: true }>['id'];

/** The methods with a WebAssembly SIMD kernel: those of {@link SKINNING_METHODS} with `simd: true`. */
export type SimdMethodId = Extract<(typeof SKINNING_METHODS)[number], { simd: true }>['id'];

/**
 * The methods `corskin/three` and the viewer run: on the GPU ({@link GpuMethodId}), or on the CPU
 * those without a GPU kernel that are method modules (Delta Mush) or have a SIMD kernel (SBS,
 * LMS, stretch skinning) — every method but the cage's, which needs a cage bound in the file.
 */
export type ThreeMethodId =
  | GpuMethodId
  | Extract<(typeof SKINNING_METHODS)[number], { module: true; gpu: false }>['id']
  | Extract<(typeof SKINNING_METHODS)[number], { simd: true; gpu: false }>['id'];

/** The ids of the GPU methods ({@link GpuMethodId}), in registry order. */
export const GPU_METHODS: readonly GpuMethodId[] = SKINNING_METHODS.filter(
  (m): m is Extract<(typeof SKINNING_METHODS)[number], { gpu: true }> => m.gpu,
).map((m) => m.id);

/** The ids of {@link ThreeMethodId}, in registry order. */
export const THREE_METHODS: readonly ThreeMethodId[] = SKINNING_METHODS.filter(
  (m): m is Extract<(typeof SKINNING_METHODS)[number], { id: ThreeMethodId }> =>
    m.gpu || ('module' in m && m.module) || m.simd,
).map((m) => m.id);

/** The ids of the SIMD methods ({@link SimdMethodId}), in registry order. */
export const SIMD_METHODS: readonly SimdMethodId[] = SKINNING_METHODS.filter(
  (m): m is Extract<(typeof SKINNING_METHODS)[number], { simd: true }> => m.simd,
).map((m) => m.id);

/**
 * The methods `corskin evaluate --character` compares by default: every method but stretch
 * (its compensated joints are the user's choice) and cage (it needs a cage bound to the file).
 */
export const CHARACTER_METHODS: readonly MethodId[] = SKINNING_METHODS.filter((m) => m.id !== 'stretch' && m.id !== 'cage').map(
  (m) => m.id,
);

/**
 * The methods `corskin bake` bakes: every method but LBS (what the baked file plays anyway) and
 * cage (a `bind-cage` rig is not baked; the skinning templates are).
 */
export const BAKE_METHODS: readonly MethodId[] = SKINNING_METHODS.filter((m) => m.id !== 'lbs' && m.id !== 'cage').map(
  (m) => m.id,
);

/** The methods whose data `corskin precompute --method` computes and stores (`precomputes` not null). */
export const PRECOMPUTED_METHODS: readonly MethodId[] = SKINNING_METHODS.filter((m) => m.precomputes).map((m) => m.id);

/** The descriptor of `id`. @throws RangeError for an unknown id */
export function methodInfo(id: string): MethodInfo {
  const info = SKINNING_METHODS.find((m) => m.id === id);
  if (!info) throw new RangeError(`unknown skinning method "${id}" (expected ${SKINNING_METHODS.map((m) => m.id).join(', ')})`);
  return info;
}

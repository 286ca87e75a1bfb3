/**
 * The quality benchmark: the five joint manipulations of Le & Hodgins 2016, Fig. 2 on the bar, and the
 * standard arm poses, evaluated for every method with the metrics of `src/metrics`.
 *
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';
import { SKINNING_METHODS, type MethodId } from '../deformers/registry.js';
import { restPose, skinningMatrices, type Pose } from '../core/pose.js';
import { bindJointPositions, type Skeleton } from '../core/skeleton.js';
import { bindToCage } from '../cage/bind.js';
import { createCageSkinningDeformer, skinCageToSkeleton, type CageRig } from '../cage/rig.js';
import { enclosingTubeCage } from '../cage/tube.js';
import { skeletonChain } from '../core/limbs.js';
import { computeCentersOfRotation } from '../cor/precompute.js';
import type { DeformTarget, Deformer } from '../deformers/contract.js';
import { deformers } from '../deformers/index.js';
import { createStretchDeformer, stretchRigFromSkeleton } from '../deformers/stretch.js';
import { methodModule, prepareMethod } from '../methods/index.js';
import { oneRings, rigidityDistortion } from '../metrics/distortion.js';
import { selfIntersections, surfaceArea } from '../metrics/surface.js';
import { weldByPosition } from '../metrics/weld.js';
import { createBar } from './bar.js';
import { measureJointQuality, restPositions } from './joint-quality.js';
import { bendPose, boneAxis, findJoint, twistPose } from './standard-poses.js';

/** Methods the benchmark compares: every registered method ({@link SKINNING_METHODS}). */
export const BENCHMARK_METHODS: readonly MethodId[] = SKINNING_METHODS.map((m) => m.id);
/** One of {@link BENCHMARK_METHODS}. */
export type BenchmarkMethod = MethodId;

/** What each method uploads to a GPU, from the registry (`deformers/registry.ts`). */
export const METHOD_COST: Readonly<
  Record<
    BenchmarkMethod,
    {
      /** Floats uploaded per bone per frame. */
      floatsPerBone: number;
      /** Floats precomputed per vertex, uploaded once. */
      floatsPerVertex: number;
    }
  >
> = Object.fromEntries(
  SKINNING_METHODS.map((m) => [m.id, { floatsPerBone: m.floatsPerBone, floatsPerVertex: m.floatsPerVertex }]),
) as Record<BenchmarkMethod, { floatsPerBone: number; floatsPerVertex: number }>;

/** One joint manipulation. */
export interface BenchmarkCase {
  /** Row label, e.g. `twist 135°`. */
  name: string;
  /** The pose deformed to. */
  pose: Pose;
  /** The manipulated joint, where the cross-section is measured. */
  joint: number;
}

/** A rig and its cases. */
export interface Benchmark {
  /** The rig's name (`bar`, `arm`). */
  name: string;
  /** The skin, bind space. */
  mesh: SkinnedMesh;
  /** Its skeleton. */
  skeleton: Skeleton;
  /** The joint manipulations measured. */
  cases: BenchmarkCase[];
}

/** One row of the result: a case deformed by a method, measured. */
export interface BenchmarkRow {
  /** The case's name. */
  case: string;
  /** The skinning method. */
  method: BenchmarkMethod;
  /** Volume posed / rest, welded and capped (NaN: not comparable; see {@link measureJointQuality}). */
  volumeRatio: number;
  /** Ring radii about their own centroids at the joint, posed / rest, 5th percentile (collapse → 0). */
  minRadiusRatio: number;
  /** Distances to the bones at the joint, posed / rest, 95th percentile (bulge > 1). */
  maxRadiusRatio: number;
  /** Largest per-vertex rigidity distortion (normalised ARAP residual of the one-ring). */
  maxDistortion: number;
  /** Triangle pairs (not sharing a vertex once welded by position) that intersect. */
  selfIntersections: number;
  /** Surface area posed / rest. */
  surfaceAreaRatio: number;
  /** Deformation time, ms (median of 5, one thread). */
  timeMs: number;
  /** Floats uploaded per bone per frame ({@link METHOD_COST}). */
  floatsPerBone: number;
  /** Floats stored per vertex beyond the mesh and its influences. */
  floatsPerVertex: number;
}

/** Posed geometry of every (case, method), kept for reports. */
export type PosedMeshes = Map<string, Float32Array>;

/**
 * The bar benchmark (Le & Hodgins 2016, Fig. 2): joint `bone1` (x = 1) of {@link createBar} is twisted by
 * 135°, bent by 120°, twisted by 90°, bent by 90°, and bent by 90° while moved 0.2 bone lengths
 * sideways (+y, "bending with translation"), bones 1 and 2 following.
 */
export function barBenchmark(): Benchmark {
  const { mesh, skeleton } = createBar();
  const j = findJoint(skeleton, 'bone1');
  const deg = Math.PI / 180;
  const bentAndMoved = bendPose(skeleton, j, [0, 0, 1], 90 * deg);
  bentAndMoved.translations[3 * j + 1] += 0.2;
  return {
    name: 'bar',
    mesh,
    skeleton,
    cases: [
      { name: 'twist 135°', pose: twistPose(skeleton, j, 135 * deg), joint: j },
      { name: 'bend 120°', pose: bendPose(skeleton, j, [0, 0, 1], 120 * deg), joint: j },
      { name: 'twist 90°', pose: twistPose(skeleton, j, 90 * deg), joint: j },
      { name: 'bend 90°', pose: bendPose(skeleton, j, [0, 0, 1], 90 * deg), joint: j },
      { name: 'bend 90° + translation', pose: bentAndMoved, joint: j },
    ],
  };
}

/**
 * The arm benchmark (the libigl arm with the dual-quaternion tutorial's poses): joint `bone2` of the converted libigl arm
 * twisted by 180°, 135° and 90° about its bone and bent by 126° about world z.
 * @param arm the arm's mesh and skeleton (e.g. the bundled `assets/arm.glb`)
 */
export function armBenchmark(arm: { mesh: SkinnedMesh; skeleton: Skeleton }): Benchmark {
  const { skeleton } = arm;
  const j = findJoint(skeleton, 'bone2');
  boneAxis(skeleton, j); // throws early when the rig is not the arm's
  return {
    name: 'arm',
    mesh: arm.mesh,
    skeleton,
    cases: [
      { name: 'twist 180°', pose: twistPose(skeleton, j, Math.PI), joint: j },
      { name: 'twist 135°', pose: twistPose(skeleton, j, 0.75 * Math.PI), joint: j },
      { name: 'twist 90°', pose: twistPose(skeleton, j, 0.5 * Math.PI), joint: j },
      { name: 'bend 126°', pose: bendPose(skeleton, j, [0, 0, 1], 0.7 * Math.PI), joint: j },
    ],
  };
}

/**
 * The cage rig of a benchmark: a tube cage around the skeleton's joint chain, the cage vertices
 * skinned with Shepard weights, the skin bound with PMVC (Ju et al. 2008's cage skinned by LBS).
 * @throws CorskinError when the skeleton is not a single chain of joints
 */
export function chainCageRig(mesh: SkinnedMesh, skeleton: Skeleton): CageRig {
  const chain = skeletonChain(skeleton);
  const P = bindJointPositions(skeleton);
  const cage = enclosingTubeCage(
    mesh.positions,
    chain.map((j) => Array.from(P.subarray(3 * j, 3 * j + 3))),
  );
  const w = skinCageToSkeleton(cage, skeleton);
  return {
    cage,
    binding: bindToCage(mesh.positions, cage),
    cageInfluences: w.influences,
    cageJoints: w.joints,
    cageWeights: w.weights,
  };
}

/** A rigid motion of the whole rig (every joint), for the exactness check. */
export function rigidCase(bench: Benchmark): BenchmarkCase {
  const pose = restPose(bench.skeleton);
  const roots = bench.skeleton.parents.reduce<number[]>((r, p, j) => (p < 0 ? [...r, j] : r), []);
  for (const r of roots) {
    pose.translations[3 * r] += 0.3;
    pose.translations[3 * r + 2] -= 0.5;
    const h = Math.sqrt(0.5);
    pose.rotations.set([0, h, 0, h], 4 * r); // 90° about y (bind roots have identity rotations here)
  }
  return { name: 'rigid motion', pose, joint: bench.cases[0].joint };
}

/**
 * Deforms every case with every method and measures it.
 * @param methods which methods (default all of {@link BENCHMARK_METHODS})
 * @param keep when given, receives the posed positions under the key `case|method`
 */
export function runBenchmark(
  bench: Benchmark,
  methods: readonly BenchmarkMethod[] = BENCHMARK_METHODS,
  keep?: PosedMeshes,
): BenchmarkRow[] {
  const { skeleton } = bench;
  const mesh: SkinnedMesh = { ...bench.mesh };
  if (methods.includes('cor') && !mesh.centersOfRotation)
    mesh.centersOfRotation = computeCentersOfRotation(mesh).centers;
  const stretch = createStretchDeformer(stretchRigFromSkeleton(skeleton));
  // Methods that need a rig beyond the skin: built once per benchmark.
  const rigged: Partial<Record<BenchmarkMethod, Deformer>> = { stretch };
  if (methods.includes('cage')) rigged.cage = createCageSkinningDeformer(chainCageRig(mesh, skeleton));
  for (const m of methods) if (methodModule(m)) rigged[m] = prepareMethod(m, { mesh, skeleton });
  const deformerOf = (m: BenchmarkMethod): Deformer => rigged[m] ?? deformers[m as keyof typeof deformers];
  const n = mesh.positions.length / 3;
  const rest = restPositions(mesh, skeleton);
  const weld = weldByPosition(rest);
  const rings = oneRings(mesh.triangles, n);
  const restArea = surfaceArea(rest, mesh.triangles);
  const rows: BenchmarkRow[] = [];
  for (const c of bench.cases) {
    const S = skinningMatrices(skeleton, c.pose);
    for (const method of methods) {
      const out: DeformTarget = {
        positions: new Float32Array(3 * n),
        normals: mesh.normals ? new Float32Array(3 * n) : undefined,
      };
      const deformer = deformerOf(method);
      const times: number[] = [];
      for (let r = 0; r < 6; r++) {
        const t = performance.now();
        deformer(mesh, S, out);
        if (r > 0) times.push(performance.now() - t); // the first run warms the JIT up
      }
      times.sort((a, b) => a - b);
      const q = measureJointQuality(mesh, skeleton, c.pose, out.positions, c.joint, 0.1, rest);
      const distortion = rigidityDistortion(rest, out.positions, mesh.triangles, rings);
      rows.push({
        case: c.name,
        method,
        volumeRatio: q.volumeRatio,
        minRadiusRatio: q.minRadiusRatio,
        maxRadiusRatio: q.maxRadiusRatio,
        maxDistortion: distortion.reduce((a, b) => Math.max(a, b), 0),
        selfIntersections: selfIntersections(out.positions, mesh.triangles, weld),
        surfaceAreaRatio: surfaceArea(out.positions, mesh.triangles) / restArea,
        timeMs: times[2],
        ...METHOD_COST[method],
      });
      keep?.set(`${c.name}|${method}`, out.positions);
    }
  }
  return rows;
}

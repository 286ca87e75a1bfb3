/**
 * Builds a skinned glTF document from libigl-style data: a triangle mesh, a dense weight matrix
 * (one column per bone or point handle), an optional TGF skeleton and optional per-frame bone
 * transforms.
 *
 * Rig layout: glTF joint k is bone k (the k-th TGF edge, the k-th weight column), placed at
 * the bone's base joint with an identity rotation, so its inverse bind matrix is a translation by
 * minus that point. A bone's parent is the bone that ends where it starts. Bones whose end is no
 * other bone's start get a child node `<name>_end` at their end point (not a joint) so viewers
 * and tools see the bone's extent. All root joints hang under one `Armature` node, the skin's
 * common root. Without a skeleton, each weight column becomes a root joint at the
 * weight-weighted centroid of the vertices (point handles).
 *
 * @module
 */
import { Document, type Node } from '@gltf-transform/core';
import { CorskinError } from '../core/errors.js';
import { mat4Invert, mat4Multiply, quatFromMat4 } from '../core/math.js';
import { computeVertexNormals } from '../core/mesh.js';
import type { DenseMatrix, ObjMesh, TgfSkeleton } from './libigl.js';

/** Input of {@link buildSkinnedDocument}. */
export interface ConvertInput {
  /** The mesh: positions (3·n) and triangles, rest pose. */
  mesh: ObjMesh;
  /** n × m weights (rows = vertices, columns = bones or handles). */
  weights: DenseMatrix;
  /** Bones; when absent every weight column is a point handle. */
  skeleton?: TgfSkeleton;
  /** Per-frame skinning matrices (16·m each, rest → frame), e.g. from `decodeBoneAnimation` (corskin/node). */
  animation?: Float64Array[];
  /** Frames per second of `animation` (frame f at time f/fps); default 30. */
  fps?: number;
  /** Influences kept per vertex: 4 (JOINTS_0) or 8 (JOINTS_0 and JOINTS_1); default 4. */
  influences?: 4 | 8;
  /** Name of the mesh and its node; default "mesh". */
  name?: string;
  /** File names for error messages. */
  files?: {
    /** The mesh's file. */
    mesh?: string;
    /** The weights' file. */
    weights?: string;
    /** The skeleton's file. */
    skeleton?: string;
    /** The animation's file. */
    animation?: string;
  };
}

/** What the influence reduction dropped. */
export interface ConvertReport {
  /** Number of vertices n. */
  vertices: number;
  /** Number of triangles. */
  triangles: number;
  /** Number of joints: one per bone, or per point handle. */
  joints: number;
  /** Influences kept per vertex (4 or 8). */
  influences: number;
  /** Vertices that lost at least one positive weight (beyond the K largest) or had a negative one. */
  verticesAffected: number;
  /** Largest positive weight dropped. */
  largestDroppedWeight: number;
  /** Negative weights clamped to zero. */
  negativeWeights: number;
  /** Number of animation frames written (0 without an animation). */
  frames: number;
}

/**
 * Builds the document (one buffer, one scene, one skinned mesh node, one skin, optionally one
 * animation named "animation").
 * @throws CorskinError (naming the file) when sizes disagree: weight rows ≠ vertices, weight
 *   columns ≠ bones, animation bones ≠ columns; or when a vertex has no positive weight
 */
export function buildSkinnedDocument(input: ConvertInput): {
  /** The skinned glTF document. */
  document: Document;
  /** What the influence reduction dropped. */
  report: ConvertReport;
} {
  const { mesh, weights: W, skeleton } = input;
  const K = input.influences ?? 4;
  const files = input.files ?? {};
  const n = mesh.positions.length / 3;
  const m = W.cols;
  if (W.rows !== n) throw new CorskinError(`weights have ${W.rows} rows but the mesh has ${n} vertices`, files.weights);
  const boneCount = skeleton ? skeleton.bones.length / 2 : m;
  if (skeleton && boneCount !== m) {
    throw new CorskinError(`weights have ${m} columns but the skeleton has ${boneCount} bones`, files.weights);
  }
  if (m > 65535) throw new CorskinError(`${m} weight columns exceed glTF's 65535 joints`, files.weights);

  // Influence reduction: the K largest positive weights, renormalised.
  const joints = new Uint16Array(K * n);
  const weights = new Float32Array(K * n);
  let affected = 0;
  let largestDropped = 0;
  let negatives = 0;
  const order = Array.from({ length: m }, (_, c) => c);
  for (let i = 0; i < n; i++) {
    const w = (c: number) => W.data[i + n * c];
    order.sort((a, b) => w(b) - w(a) || a - b);
    // Scaled by the largest weight first: two weights of 1e308 must not sum to Infinity.
    const top = w(order[0]);
    let sum = 0;
    let dropped = false;
    for (let r = 0; r < m; r++) {
      const x = w(order[r]);
      if (x < 0) {
        negatives++;
        dropped = true;
      } else if (r >= K && x > 0) {
        dropped = true;
        if (x > largestDropped) largestDropped = x;
      } else if (r < K && x > 0) {
        sum += x / top;
      }
    }
    if (!(sum > 0 && Number.isFinite(top)))
      throw new CorskinError(`vertex ${i} has no positive finite weight`, files.weights);
    if (dropped) affected++;
    for (let r = 0; r < K; r++) {
      const x = r < m ? w(order[r]) : 0;
      joints[K * i + r] = r < m && x > 0 ? order[r] : 0;
      weights[K * i + r] = x > 0 ? x / top / sum : 0;
    }
  }

  // Joint placement.
  const heads = new Float64Array(3 * boneCount);
  const parents = new Int32Array(boneCount).fill(-1);
  const tails: (number[] | null)[] = new Array(boneCount).fill(null);
  if (skeleton) {
    const { joints: P, bones } = skeleton;
    for (let b = 0; b < boneCount; b++) {
      const h = bones[2 * b],
        t = bones[2 * b + 1];
      heads.set(P.subarray(3 * h, 3 * h + 3), 3 * b);
      parents[b] = -1;
      for (let a = 0; a < boneCount; a++) if (a !== b && bones[2 * a + 1] === h) parents[b] = a;
      const continued = Array.from({ length: boneCount }, (_, a) => bones[2 * a]).includes(t);
      if (!continued) tails[b] = [P[3 * t], P[3 * t + 1], P[3 * t + 2]];
    }
  } else {
    for (let c = 0; c < m; c++) {
      let s = 0;
      for (let i = 0; i < n; i++) {
        const x = Math.max(0, W.data[i + n * c]);
        s += x;
        for (let d = 0; d < 3; d++) heads[3 * c + d] += x * mesh.positions[3 * i + d];
      }
      if (s > 0) for (let d = 0; d < 3; d++) heads[3 * c + d] /= s;
    }
  }

  const doc = new Document();
  const buffer = doc.createBuffer();
  const scene = doc.createScene('scene');
  doc.getRoot().setDefaultScene(scene);
  const armature = doc.createNode('Armature');
  scene.addChild(armature);
  const boneName = (b: number) => (skeleton ? `bone${b}` : `handle${b}`);
  const nodes: Node[] = [];
  for (let b = 0; b < boneCount; b++) nodes.push(doc.createNode(boneName(b)));
  for (let b = 0; b < boneCount; b++) {
    const p = parents[b];
    const rel = [0, 1, 2].map((d) => heads[3 * b + d] - (p >= 0 ? heads[3 * p + d] : 0));
    nodes[b].setTranslation(rel as [number, number, number]);
    (p >= 0 ? nodes[p] : armature).addChild(nodes[b]);
    const tail = tails[b];
    if (tail) {
      const end = doc
        .createNode(`${boneName(b)}_end`)
        .setTranslation([0, 1, 2].map((d) => tail[d] - heads[3 * b + d]) as [number, number, number]);
      nodes[b].addChild(end);
    }
  }
  const ibm = new Float32Array(16 * boneCount);
  for (let b = 0; b < boneCount; b++) {
    ibm.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -heads[3 * b], -heads[3 * b + 1], -heads[3 * b + 2], 1], 16 * b);
  }
  const skin = doc
    .createSkin('skin')
    .setSkeleton(armature)
    .setInverseBindMatrices(doc.createAccessor('inverseBindMatrices').setType('MAT4').setArray(ibm).setBuffer(buffer));
  for (const node of nodes) skin.addJoint(node);

  const name = input.name ?? 'mesh';
  const prim = doc
    .createPrimitive()
    .setIndices(doc.createAccessor().setType('SCALAR').setArray(mesh.triangles.slice()).setBuffer(buffer))
    .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(mesh.positions.slice()).setBuffer(buffer))
    .setAttribute(
      'NORMAL',
      doc
        .createAccessor()
        .setType('VEC3')
        .setArray(computeVertexNormals(mesh.positions, mesh.triangles))
        .setBuffer(buffer),
    );
  const small = boneCount <= 256;
  for (let set = 0; set < K / 4; set++) {
    const js = small ? new Uint8Array(4 * n) : new Uint16Array(4 * n);
    const ws = new Float32Array(4 * n);
    for (let i = 0; i < n; i++) {
      for (let c = 0; c < 4; c++) {
        js[4 * i + c] = joints[K * i + 4 * set + c];
        ws[4 * i + c] = weights[K * i + 4 * set + c];
      }
    }
    prim.setAttribute(`JOINTS_${set}`, doc.createAccessor().setType('VEC4').setArray(js).setBuffer(buffer));
    prim.setAttribute(`WEIGHTS_${set}`, doc.createAccessor().setType('VEC4').setArray(ws).setBuffer(buffer));
  }
  const meshNode = doc.createNode(name).setMesh(doc.createMesh(name).addPrimitive(prim)).setSkin(skin);
  scene.addChild(meshNode);

  if (input.animation?.length)
    addBoneAnimation(doc, buffer, nodes, parents, heads, input.animation, input.fps ?? 30, files.animation);

  return {
    document: doc,
    report: {
      vertices: n,
      triangles: mesh.triangles.length / 3,
      joints: boneCount,
      influences: K,
      verticesAffected: affected,
      largestDroppedWeight: largestDropped,
      negativeWeights: negatives,
      frames: input.animation?.length ?? 0,
    },
  };
}

/**
 * Turns absolute per-frame skinning matrices M_b(f) into glTF TRS channels: the global matrix
 * of joint b is G_b = M_b · T(h_b) (since its inverse bind matrix is T(−h_b)), the local one
 * G_parent⁻¹ · G_b, decomposed into translation, rotation and scale (the transforms must be
 * free of shear).
 */
function addBoneAnimation(
  doc: Document,
  buffer: ReturnType<Document['createBuffer']>,
  nodes: Node[],
  parents: Int32Array,
  heads: Float64Array,
  frames: Float64Array[],
  fps: number,
  file?: string,
): void {
  const B = nodes.length;
  if (!(fps > 0)) throw new CorskinError(`fps must be > 0, got ${fps}`);
  if (frames[0].length !== 16 * B)
    throw new CorskinError(`animation has ${frames[0].length / 16} bones, the rig has ${B}`, file);
  const F = frames.length;
  const times = Float32Array.from({ length: F }, (_, f) => f / fps);
  const T = new Float32Array(3 * F * B),
    R = new Float32Array(4 * F * B),
    S = new Float32Array(3 * F * B);
  const G = new Float64Array(16 * B);
  const inv = new Float64Array(16);
  const local = new Float64Array(16);
  const q = new Float64Array(4);
  for (let f = 0; f < F; f++) {
    const M = frames[f];
    for (let b = 0; b < B; b++) {
      const h = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, heads[3 * b], heads[3 * b + 1], heads[3 * b + 2], 1];
      mat4Multiply(G, 16 * b, M, 16 * b, h, 0);
    }
    for (let b = 0; b < B; b++) {
      const p = parents[b];
      if (p >= 0) {
        if (!mat4Invert(inv, 0, G, 16 * p))
          throw new CorskinError(`frame ${f}: bone ${p}'s transform is singular`, file);
        mat4Multiply(local, 0, inv, 0, G, 16 * b);
      } else {
        local.set(G.subarray(16 * b, 16 * b + 16));
      }
      const o = F * b + f;
      T.set([local[12], local[13], local[14]], 3 * o);
      quatFromMat4(q, 0, local, 0);
      R.set(q, 4 * o);
      S.set(
        [
          Math.hypot(local[0], local[1], local[2]),
          Math.hypot(local[4], local[5], local[6]),
          Math.hypot(local[8], local[9], local[10]),
        ],
        3 * o,
      );
    }
  }
  const anim = doc.createAnimation('animation');
  const input = doc.createAccessor().setType('SCALAR').setArray(times).setBuffer(buffer);
  const scaled = S.some((s) => Math.abs(s - 1) > 1e-6);
  for (let b = 0; b < B; b++) {
    const channels: ['translation' | 'rotation' | 'scale', Float32Array, 'VEC3' | 'VEC4', number][] = [
      ['translation', T, 'VEC3', 3],
      ['rotation', R, 'VEC4', 4],
    ];
    if (scaled) channels.push(['scale', S, 'VEC3', 3]);
    for (const [path, data, type, c] of channels) {
      const output = doc
        .createAccessor()
        .setType(type)
        .setArray(data.slice(c * F * b, c * F * (b + 1)))
        .setBuffer(buffer);
      const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR');
      anim
        .addSampler(sampler)
        .addChannel(doc.createAnimationChannel().setSampler(sampler).setTargetNode(nodes[b]).setTargetPath(path));
    }
  }
}

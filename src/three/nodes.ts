/**
 * `corskin/three/webgpu`: `corskin/three` for WebGPURenderer (either backend) — DQS, CoR and
 * skinning-template skinning (and 8-influence LBS) for three.js node materials. The same
 * {@link useSkinningMethod} call as `corskin/three` gives every material corskin's skinning node;
 * GLTFLoader's classic materials are converted to node materials first, as WebGPURenderer would.
 *
 * ```ts
 * import { WebGPURenderer } from 'three/webgpu';
 * import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
 * import { useSkinningMethod } from 'corskin/three/webgpu';
 *
 * const renderer = new WebGPURenderer();
 * await renderer.init();
 * const gltf = await new GLTFLoader().loadAsync('character-cor.glb');
 * scene.add(gltf.scene);
 * await useSkinningMethod(gltf.scene, 'cor'); // or 'dqs', 'templates', 'ddm'; 'lbs' restores three's own
 * ```
 *
 * How it works: a node function that replaces three's `skinning()` node, reading the
 * same joint texture as the WebGL chunks (`chunks.ts`: 4 texels per joint, matrix rows and
 * rotation quaternion, in the mesh's bind space) with the same two-phase path for scale, shear
 * and reflection and the same antipodality rule (largest weight). Direct Delta Mush (Le & Lewis
 * 2019) runs the WebGL chunk's steps (`chunks.ts`, `methods/ddm/three.ts`): the vertex's entries from the
 * packed texture, Q, and the polar factor by the CPU's fixed Jacobi sweeps (`methods/ddm/polar.ts`). Morph targets, displacement
 * maps, batching, instancing and the material's `positionNode` are applied around it in
 * three's own order.
 *
 * @module corskin/three/webgpu
 */
import { COR_ATTRIBUTE_THREE } from '../io/schema.js';
import type { Material, Object3D } from 'three';
import {
  LineBasicNodeMaterial,
  MeshBasicNodeMaterial,
  MeshLambertNodeMaterial,
  MeshMatcapNodeMaterial,
  MeshNormalNodeMaterial,
  MeshPhongNodeMaterial,
  MeshPhysicalNodeMaterial,
  MeshStandardNodeMaterial,
  MeshToonNodeMaterial,
} from 'three/webgpu';
import {
  Fn,
  Loop,
  attribute,
  batch,
  cross,
  dot,
  float,
  instancedMesh,
  int,
  ivec2,
  mat3,
  materialReference,
  morphReference,
  normalLocal,
  positionLocal,
  select,
  subBuild,
  tangentLocal,
  texture,
  transpose,
  uniform,
  vec3,
  vec4,
} from 'three/tsl';
import { POLAR_JACOBI_SWEEPS } from '../methods/ddm/polar.js';
import { TEXELS_PER_JOINT } from './chunks.js';
import { TEXTURE_WIDTH } from '../methods/templates/three.js';
import {
  useSkinningMethod as useSkinningMethodBase,
  type ThreeSkinningMethod,
  type NodePatchOptions,
  type SkinningOptions,
} from './index.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- TSL nodes are untyped proxies */
type Node = any;

/** `v + 2 q.xyz × (q.xyz × v + q.w v)`: v rotated by unit quaternion q. */
const rotate = (q: Node, v: Node): Node => v.add(cross(q.xyz, cross(q.xyz, v).add(q.w.mul(v))).mul(2));

/** v / |v|, or v itself when it is zero (zero normals in real files stay zero, never NaN). */
const safeNormalize = (v: Node): Node => {
  const l = v.length();
  return select(l.greaterThan(0), v.div(l), v);
};

/** det(A)·A⁻ᵀ n with the sign of det(A) (columns a0, a1, a2). */
const cofactor = (a: Node[], n: Node): Node => {
  const c0 = cross(a[1], a[2]), c1 = cross(a[2], a[0]), c2 = cross(a[0], a[1]); // prettier-ignore
  const r = c0.mul(n.x).add(c1.mul(n.y)).add(c2.mul(n.z));
  return select(dot(a[0], c0).lessThan(0), r.negate(), r);
};

/** The columns of S·v (S as its columns s). */
const mulColumns = (s: Node[], v: Node): Node => s[0].mul(v.x).add(s[1].mul(v.y)).add(s[2].mul(v.z));

/**
 * The orthogonal polar factor U·Vᵀ of S (its columns), by the steps of `methods/ddm/polar.ts` (and the
 * WebGL chunk's `corskinPolar`): {@link POLAR_JACOBI_SWEEPS} cyclic Jacobi sweeps on SᵀS, the
 * eigenvectors sorted by descending eigenvalue, U by Gram–Schmidt with u_c's sign from
 * (S v_c)·(u_a × u_b). Returns R's columns.
 */
function polarFactorNode(s: Node[]): Node[] {
  let a00: Node = dot(s[0], s[0]).toConst(), a01: Node = dot(s[0], s[1]).toConst(), a02: Node = dot(s[0], s[2]).toConst(); // prettier-ignore
  let a11: Node = dot(s[1], s[1]).toConst(), a12: Node = dot(s[1], s[2]).toConst(), a22: Node = dot(s[2], s[2]).toConst(); // prettier-ignore
  let v0: Node = vec3(1, 0, 0), v1: Node = vec3(0, 1, 0), v2: Node = vec3(0, 0, 1); // prettier-ignore
  /** The rotation zeroing a_pq (skipped, t = 0, where it is 0): new [app, aqq, apr, aqr, vp, vq]. */
  const jacobi = (app: Node, aqq: Node, apq: Node, apr: Node, aqr: Node, vp: Node, vq: Node): Node[] => {
    const tau = aqq.sub(app).div(apq.mul(2)).toConst();
    const step = select(tau.greaterThanEqual(0), float(1), float(-1)).div(tau.abs().add(tau.mul(tau).add(1).sqrt()));
    const t = select(apq.equal(0), float(0), step).toConst();
    const c = float(1).div(t.mul(t).add(1).sqrt()).toConst();
    const sn = t.mul(c).toConst();
    return [
      app.sub(t.mul(apq)).toConst(),
      aqq.add(t.mul(apq)).toConst(),
      c.mul(apr).sub(sn.mul(aqr)).toConst(),
      sn.mul(apr).add(c.mul(aqr)).toConst(),
      vp.mul(c).sub(vq.mul(sn)).toConst(),
      vp.mul(sn).add(vq.mul(c)).toConst(),
    ];
  };
  for (let sweep = 0; sweep < POLAR_JACOBI_SWEEPS; sweep++) {
    [a00, a11, a02, a12, v0, v1] = jacobi(a00, a11, a01, a02, a12, v0, v1);
    a01 = float(0);
    [a00, a22, a01, a12, v0, v2] = jacobi(a00, a22, a02, a01, a12, v0, v2);
    a02 = float(0);
    [a11, a22, a01, a02, v1, v2] = jacobi(a11, a22, a12, a01, a02, v1, v2);
    a12 = float(0);
  }
  // Descending eigenvalues (the CPU's three compare-and-swaps).
  let [ea, eb, ec, va, vb, vc] = [a00, a11, a22, v0, v1, v2];
  const swap = (cond: Node, x: Node, y: Node): Node[] => [select(cond, y, x).toConst(), select(cond, x, y).toConst()];
  let cond = ea.lessThan(eb).toConst();
  [ea, eb] = swap(cond, ea, eb);
  [va, vb] = swap(cond, va, vb);
  cond = ea.lessThan(ec).toConst();
  [ea, ec] = swap(cond, ea, ec);
  [va, vc] = swap(cond, va, vc);
  cond = eb.lessThan(ec).toConst();
  [eb, ec] = swap(cond, eb, ec);
  [vb, vc] = swap(cond, vb, vc);
  const root: Node = ea.sqrt().toConst();
  const sa: Node = mulColumns(s, va).toConst();
  const la: Node = sa.length().toConst();
  const ua: Node = select(la.greaterThan(0), sa.div(la), va).toConst();
  const sb: Node = mulColumns(s, vb).toConst();
  const ob: Node = sb.sub(ua.mul(dot(sb, ua))).toConst();
  const lb: Node = ob.length().toConst();
  const ax: Node = select(ua.x.abs().lessThan(0.6), float(1), float(0)).toConst();
  const ay: Node = float(1).sub(ax).toConst();
  const fallback: Node = vec3(ay.mul(ua.z), ax.negate().mul(ua.z), ax.mul(ua.y).sub(ay.mul(ua.x))).toConst();
  const good: Node = lb.greaterThan(root.mul(1e-12)).toConst();
  const ub: Node = select(good, ob.div(lb), fallback.div(fallback.length())).toConst();
  const w: Node = cross(ua, ub).toConst();
  const d: Node = dot(mulColumns(s, vc), w).toConst();
  const sign: Node = select(
    d.abs().greaterThan(root.mul(1e-9)),
    select(d.greaterThan(0), float(1), float(-1)),
    select(dot(cross(va, vb), vc).greaterThan(0), float(1), float(-1)),
  );
  const uc: Node = w.mul(sign).toConst();
  return ['x', 'y', 'z'].map((k) => ua.mul(va[k]).add(ub.mul(vb[k])).add(uc.mul(vc[k])).toConst());
}

/** |det L|^(1/3) of L's columns: the joint's uniform scale (σ of `methods/ddm/deformer.ts`). */
const jointScale = (a: Node[]): Node =>
  dot(a[0], cross(a[1], a[2]))
    .abs()
    .pow(1 / 3);

/**
 * The skinning node: assigns `positionLocal`, `normalLocal` and `tangentLocal` from the joint
 * texture (filled by `writeJointTexture`), for `o.method` with 4 or 8 influences.
 */
export function corskinSkinning(o: NodePatchOptions, hasNormal: boolean, hasTangent: boolean): Node {
  return Fn(() => {
    const tex = texture(o.jointTexture);
    const size = int(o.jointTexture.image.width);
    const stretch = uniform(0).onObjectUpdate(() => o.stretch.value);
    const fetch = (joint: Node, k: number): Node => {
      const i = int(joint).mul(TEXELS_PER_JOINT).add(k).toConst();
      return tex.load(ivec2(i.mod(size), i.div(size)));
    };
    /** Assigns the affine map x ↦ L x + t (L's columns) to position, normal and tangent. */
    const applyAffine = (L: Node[], t: Node) => {
      if (hasNormal) normalLocal.assign(safeNormalize(cofactor(L, normalLocal)));
      if (hasTangent) tangentLocal.assign(safeNormalize(mulColumns(L, tangentLocal.xyz)));
      positionLocal.assign(mulColumns(L, positionLocal).add(t));
    };
    if (o.method === 'ddm') {
      const ddm = texture(o.deltaMush!);
      const compact = o.ddm === 'compact';
      const texel = (i: Node): Node =>
        ddm.load(ivec2(i.bitAnd(TEXTURE_WIDTH - 1), i.shiftRight(Math.log2(TEXTURE_WIDTH))));
      const range = attribute('corskinDdmRange', 'vec2');
      const first = int(range.x).toConst();
      const count = int(range.y).toConst();
      const v = positionLocal.toConst(); // the frame of Ω': the position after morph targets
      const v1 = vec4(v, float(1));
      /** Joint j's linear part (columns) and its image of the bind position. */
      const joint = (j: Node): { a: Node[]; t: Node } => {
        const r = [0, 1, 2].map((k) => fetch(j, k).toConst());
        return {
          a: ['x', 'y', 'z'].map((c) => vec3(r[0][c], r[1][c], r[2][c])),
          t: vec3(dot(r[0], v1), dot(r[1], v1), dot(r[2], v1)),
        };
      };
      const Q = [0, 1, 2, 3].map(() => vec3(0).toVar());
      const B = vec4(0).toVar(); // Q's bottom row
      const sigma = float(0).toVar();
      /** Q += [a | t]·X (X the symmetric 4×4 as its 10 numbers), scaled by w. */
      const addTimes = (target: Node[], m: Node[], x: Node[]) => {
        const X = [
          [x[0], x[1], x[2], x[3]],
          [x[1], x[4], x[5], x[6]],
          [x[2], x[5], x[7], x[8]],
          [x[3], x[6], x[8], x[9]],
        ];
        for (let k = 0; k < 4; k++)
          target[k].addAssign(m[0].mul(X[0][k]).add(m[1].mul(X[1][k])).add(m[2].mul(X[2][k])).add(m[3].mul(X[3][k])));
      };
      if (compact) {
        const sw = float(0).toVar();
        const M = [0, 1, 2, 3].map(() => vec3(0).toVar());
        Loop({ start: int(0), end: count.add(1).div(2), type: 'int', condition: '<' }, ({ i }: { i: Node }) => {
          const e = texel(first.add(3).add(i)).toConst();
          for (const [jc, wc] of [
            ['x', 'y'],
            ['z', 'w'],
          ]) {
            const { a, t } = joint(e[jc]);
            const we = e[wc];
            [...a, t].forEach((col, k) => M[k].addAssign(col.mul(we)));
            sw.addAssign(we);
            sigma.addAssign(we.mul(jointScale(a)));
          }
        });
        const x0 = texel(first).toConst(), x1 = texel(first.add(1)).toConst(), x2 = texel(first.add(2)).toConst(); // prettier-ignore
        const x = [x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w, x2.x, x2.y];
        addTimes(Q, M, x);
        B.assign(vec4(x[3], x[6], x[8], x[9]).mul(sw));
        sigma.divAssign(sw);
      } else {
        Loop({ start: int(0), end: count, type: 'int', condition: '<' }, ({ i }: { i: Node }) => {
          const at = first.add(i.mul(3)).toConst();
          const x0 = texel(at).toConst(), x1 = texel(at.add(1)).toConst(), x2 = texel(at.add(2)).toConst(); // prettier-ignore
          const { a, t } = joint(x0.x);
          const x = [x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w, x2.x, x2.y, x2.z];
          addTimes(Q, [...a, t], x);
          B.addAssign(vec4(x[3], x[6], x[8], x[9]));
          sigma.addAssign(x[9].mul(jointScale(a)));
        });
        sigma.divAssign(B.w);
      }
      const ic: Node = float(1).div(B.w).toConst();
      const q: Node = Q[3].mul(ic).toConst();
      const p: Node = B.xyz.mul(ic).toConst();
      const R = polarFactorNode(['x', 'y', 'z'].map((k, c) => Q[c].mul(ic).sub(q.mul(p[k])).toConst()));
      // v' = q − σ R p at v (x ↦ R x + t takes v there).
      const tDdm = q.sub(mulColumns(R, p).mul(sigma)).sub(mulColumns(R, v));
      // One entry (or none: joint 0): the joint's matrix, as the CPU deformer.
      const single = count.lessThanEqual(1).toConst();
      const j0 = select(count.equal(0), float(0), texel(first.add(compact ? 3 : 0)).x);
      const affine = joint(j0);
      const L = [0, 1, 2].map((c) => select(single, affine.a[c], R[c]).toConst());
      const t = select(single, affine.t.sub(mulColumns(affine.a, v)), tDdm);
      applyAffine(L, t.toConst());
      return;
    }
    const J: Node[] = [];
    const W: Node[] = [];
    const sets: Node[][] = o.eight
      ? [
          [attribute('corskinIndex0', 'vec4'), attribute('corskinWeight0', 'vec4')],
          [attribute('corskinIndex1', 'vec4'), attribute('corskinWeight1', 'vec4')],
        ]
      : [[attribute('skinIndex', 'uvec4'), attribute('skinWeight', 'vec4')]];
    for (const [idx, wgt] of sets) {
      for (const c of ['x', 'y', 'z', 'w']) {
        J.push(float(idx[c]).toConst());
        W.push(wgt[c].toConst());
      }
    }
    const rows = J.map((j) => [fetch(j, 0).toConst(), fetch(j, 1).toConst(), fetch(j, 2).toConst()]);
    const transform = (k: number, p: Node): Node => {
      const p1 = vec4(p, float(1));
      return vec3(dot(rows[k][0], p1), dot(rows[k][1], p1), dot(rows[k][2], p1));
    };
    // Columns of L_j.
    const linear = (k: number): Node[] => [
      vec3(rows[k][0].x, rows[k][1].x, rows[k][2].x),
      vec3(rows[k][0].y, rows[k][1].y, rows[k][2].y),
      vec3(rows[k][0].z, rows[k][1].z, rows[k][2].z),
    ];
    const blend = (parts: Node[]): Node => parts.reduce((a, b) => a.add(b));
    if (o.method === 'lbs') {
      const L = [0, 1, 2].map((c) => blend(W.map((w, k) => linear(k)[c].mul(w))).toConst());
      const t = blend(W.map((w, k) => transform(k, vec3(0)).mul(w))).toConst();
      if (hasNormal) normalLocal.assign(safeNormalize(cofactor(L, normalLocal)));
      if (hasTangent)
        tangentLocal.assign(
          safeNormalize(L[0].mul(tangentLocal.x).add(L[1].mul(tangentLocal.y)).add(L[2].mul(tangentLocal.z))),
        );
      positionLocal.assign(
        L[0].mul(positionLocal.x).add(L[1].mul(positionLocal.y)).add(L[2].mul(positionLocal.z)).add(t),
      );
      return;
    }
    const Q = J.map((j) => fetch(j, 3).toConst());
    // Pivot: the largest weight, ties to the smaller joint index.
    let bestW: Node = W[0];
    let bestJ: Node = J[0];
    let pivot: Node = Q[0];
    for (let k = 1; k < W.length; k++) {
      const better = W[k].greaterThan(bestW).or(W[k].equal(bestW).and(J[k].lessThan(bestJ)));
      bestW = select(better, W[k], bestW);
      bestJ = select(better, J[k], bestJ);
      pivot = select(better, Q[k], pivot);
    }
    pivot = pivot.toConst();
    const S = W.map((w, k) => select(dot(Q[k], pivot).lessThan(0), w.negate(), w).toConst());
    const qSum = blend(Q.map((q, k) => q.mul(S[k]))).toConst();
    const len = qSum.length().toConst();
    let r = qSum.div(len).toConst();
    // Blended stretch K̄ = Σ w_j R_jᵀ L_j (identity when every matrix is rigid).
    const stretchOf = (k: number): Node[] => {
      const Rt = transpose(mat3(rotate(Q[k], vec3(1, 0, 0)), rotate(Q[k], vec3(0, 1, 0)), rotate(Q[k], vec3(0, 0, 1))));
      return linear(k).map((col) => Rt.mul(col));
    };
    const parts = W.map((_, k) => stretchOf(k));
    const K = [0, 1, 2].map((c) =>
      select(
        stretch.greaterThan(0.5),
        blend(W.map((w, k) => parts[k][c].mul(w))),
        vec3(c === 0 ? 1 : 0, c === 1 ? 1 : 0, c === 2 ? 1 : 0),
      ).toConst(),
    );
    const applyK = (v: Node): Node => K[0].mul(v.x).add(K[1].mul(v.y)).add(K[2].mul(v.z));
    if (o.method === 'dqs' || o.method === 'templates') {
      // Center at the vertex: blend the dual quaternions of [R_j | M_j(v) − v].
      const v = positionLocal.toConst();
      const d = blend(
        W.map((_, k) => {
          const m = transform(k, v).sub(v);
          const q = Q[k];
          return vec4(q.w.mul(m).add(cross(m, q.xyz)), dot(m, q.xyz).negate()).mul(S[k].mul(0.5));
        }),
      )
        .div(len)
        .toConst();
      const t = r.w.mul(d.xyz).sub(d.w.mul(r.xyz)).add(cross(r.xyz, d.xyz)).mul(2);
      positionLocal.assign(v.add(t));
      if (o.method === 'templates') {
        // The templates' correction over DQS (`templates.ts`, the WebGL chunk's loop): the cage's
        // correction dual quaternions through the vertex's binding run, blended with the identity.
        const cage = texture(o.template!.cage);
        const binding = texture(o.template!.binding);
        const texel = (i: Node): Node => ivec2(i.bitAnd(TEXTURE_WIDTH - 1), i.shiftRight(Math.log2(TEXTURE_WIDTH)));
        const range = attribute('corskinTemplateRange', 'vec2');
        const first = int(range.x).toConst();
        const texels = int(range.y).toConst();
        const real = (index: Node): Node => cage.load(texel(int(index).mul(2)));
        const dual = (index: Node): Node => cage.load(texel(int(index).mul(2).add(1)));
        const cr = vec4(0).toVar();
        const cd = vec4(0).toVar();
        const share = float(0).toVar();
        Loop({ start: int(0), end: texels, type: 'int', condition: '<' }, ({ i }: { i: Node }) => {
          const e = binding.load(texel(first.add(i))).toConst();
          cr.addAssign(real(e.x).mul(e.y).add(real(e.z).mul(e.w)));
          cd.addAssign(dual(e.x).mul(e.y).add(dual(e.z).mul(e.w)));
          share.addAssign(e.y.add(e.w));
        });
        const unit: Node = cr.add(vec4(0, 0, 0, float(1).sub(share).max(0))).toConst();
        const len2: Node = unit.length().toConst();
        const u: Node = unit.div(len2).toConst();
        const du: Node = cd.div(len2).toConst();
        const tc: Node = u.w.mul(du.xyz).sub(du.w.mul(u.xyz)).add(cross(u.xyz, du.xyz)).mul(2);
        positionLocal.assign(rotate(u, positionLocal).add(tc));
        // r′ = u ⊗ r: DQS's rotation, then the correction's (normals and tangents below).
        const xyz: Node = u.w.mul(r.xyz).add(r.w.mul(u.xyz)).add(cross(u.xyz, r.xyz));
        r = vec4(xyz, u.w.mul(r.w).sub(dot(u.xyz, r.xyz))).toConst();
      }
    } else {
      const c = attribute(COR_ATTRIBUTE_THREE, 'vec3').toConst();
      const lbsOfCenter = blend(W.map((w, k) => transform(k, c).mul(w)));
      positionLocal.assign(rotate(r, applyK(positionLocal.sub(c))).add(lbsOfCenter));
    }
    if (hasNormal) normalLocal.assign(rotate(r, safeNormalize(cofactor(K, normalLocal))));
    if (hasTangent) tangentLocal.assign(rotate(r, safeNormalize(applyK(tangentLocal))));
  }, 'void')();
}

/**
 * A clone of a node material whose vertex position stage skins with corskin instead of three's
 * `skinning()` node: three's `NodeMaterial.setupPosition` with that one step replaced (morph
 * targets before skinning; displacement map, batching, instancing and `positionNode` after).
 */
export function patchNodeMaterial(material: Material, o: NodePatchOptions): Material {
  const m = material.clone() as Material & {
    setupPosition: (builder: Node) => Node;
    positionNode: Node;
    displacementMap?: unknown;
  };
  const base = m.setupPosition;
  m.setupPosition = function (builder: Node) {
    const { object, geometry } = builder;
    if (!object.isSkinnedMesh) return base.call(this, builder);
    if (geometry.morphAttributes.position || geometry.morphAttributes.normal || geometry.morphAttributes.color) {
      morphReference(object);
    }
    corskinSkinning(o, builder.hasGeometryAttribute('normal'), builder.hasGeometryAttribute('tangent'));
    if (this.displacementMap) {
      const map: Node = materialReference('displacementMap', 'texture');
      const scale = materialReference('displacementScale', 'float');
      const bias = materialReference('displacementBias', 'float');
      positionLocal.addAssign(normalLocal.normalize().mul(map.x.mul(scale).add(bias)));
    }
    if (object.isBatchedMesh) batch(object);
    if (object.isInstancedMesh && object.instanceMatrix?.isInstancedBufferAttribute === true) instancedMesh(object);
    if (this.positionNode) positionLocal.assign(subBuild(this.positionNode, 'POSITION', 'vec3'));
    return positionLocal;
  };
  m.customProgramCacheKey = () => `corskin-${o.method}${o.eight ? '-8' : ''}${o.ddm ? `-${o.ddm}` : ''}`;
  return m;
}

/** The node material class WebGPURenderer uses for each classic material type. */
const NODE_MATERIALS: Record<string, new () => Material> = {
  MeshStandardMaterial: MeshStandardNodeMaterial,
  MeshPhysicalMaterial: MeshPhysicalNodeMaterial,
  MeshPhongMaterial: MeshPhongNodeMaterial,
  MeshLambertMaterial: MeshLambertNodeMaterial,
  MeshBasicMaterial: MeshBasicNodeMaterial,
  MeshToonMaterial: MeshToonNodeMaterial,
  MeshNormalMaterial: MeshNormalNodeMaterial,
  MeshMatcapMaterial: MeshMatcapNodeMaterial,
  LineBasicMaterial: LineBasicNodeMaterial,
};

/**
 * The node material WebGPURenderer would make of a classic material (GLTFLoader's
 * MeshStandardMaterial, …): the same class mapping and property copy as three's
 * `NodeLibrary.fromMaterial`. Node materials are returned as they are.
 * @throws Error naming the material type when it has no node-material equivalent
 */
export function toNodeMaterial(material: Material): Material {
  if ((material as Material & { isNodeMaterial?: boolean }).isNodeMaterial) return material;
  const NodeClass = NODE_MATERIALS[material.type];
  if (!NodeClass)
    throw new Error(
      `corskin/three/webgpu: ${material.type} has no node-material equivalent; give the mesh a node material (e.g. MeshStandardNodeMaterial)`,
    );
  const node = new NodeClass() as Material & Record<string, unknown>;
  for (const key in material) node[key] = (material as unknown as Record<string, unknown>)[key];
  return node;
}

/**
 * `useSkinningMethod` for WebGPURenderer (either backend): every material — GLTFLoader's own
 * classic materials too, converted as WebGPURenderer would — gets corskin's skinning node.
 * @throws as `corskin/three`'s, and when a material has no node-material equivalent
 */
export function useSkinningMethod(
  object: Object3D,
  method: ThreeSkinningMethod,
  options: SkinningOptions = {},
): Promise<void> {
  return useSkinningMethodBase(object, method, { ...options, patchNodeMaterial, toNodeMaterial });
}

/**
 * Direct Delta Mush on WebGPURenderer (Binh Huy Le and J. P. Lewis, "Direct Delta Mush Skinning
 * and Variants", ACM TOG 38(4), SIGGRAPH 2019): the method's TSL kernel, the steps of its GLSL
 * kernel (`three-glsl.ts`) — the vertex's entries from the packed texture (`three.ts`), Q, and the polar
 * factor by the CPU's fixed Jacobi sweeps (`polar.ts`).
 *
 * @module
 */
import { Loop, attribute, cross, dot, float, int, positionLocal, select, texture, vec3, vec4 } from 'three/tsl';
import {
  applyAffine,
  jointMatrix,
  mulColumns,
  texelAddress,
  type Node,
  type TslContext,
  type TslKernel,
} from '../../three/tsl.js';
import { POLAR_JACOBI_SWEEPS } from './polar.js';

/**
 * The orthogonal polar factor U·Vᵀ of S (its columns), by the steps of `polar.ts` (and the
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

/** |det L|^(1/3) of L's columns: the joint's uniform scale (σ of `deformer.ts`). */
const jointScale = (a: Node[]): Node =>
  dot(a[0], cross(a[1], a[2]))
    .abs()
    .pow(1 / 3);

/**
 * Direct Delta Mush's TSL kernel: the affine map x ↦ R x + (r + q − σ R p − R v) of the vertex's
 * entries (r the first entry's joint's image of v, Q's translations taken relative to it);
 * a vertex with one entry (or none: joint 0) takes its joint's matrix, as the CPU
 * deformer.
 */
export const DDM_TSL: TslKernel = {
  id: 'ddm',
  skin(c: TslContext) {
    const ddm = texture(c.o.textures.corskinDdm);
    const compact = c.o.variant === 'compact';
    const texel = (i: Node): Node => ddm.load(texelAddress(i));
    const range = attribute('corskinDdmRange', 'vec2');
    const first = int(range.x).toConst();
    const count = int(range.y).toConst();
    const v = positionLocal.toConst(); // the frame of Ω': the position after morph targets
    // The first entry's joint (joint 0 for a vertex with none), and r, its image of v: the
    // translations are taken relative to r (S does not depend on it; floats keep their digits far
    // from the origin, see asm/ddm.ts).
    const j0 = select(count.equal(0), float(0), texel(first.add(compact ? 3 : 0)).x).toConst();
    const r = jointMatrix(c, j0).transform(v).toConst();
    /** Joint j's linear part (columns) and its image of the bind position, relative to r. */
    const joint = (j: Node): { a: Node[]; t: Node } => {
      const m = jointMatrix(c, j);
      return { a: m.linear, t: m.transform(v).sub(r) };
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
    const R = polarFactorNode(['x', 'y', 'z'].map((k, col) => Q[col].mul(ic).sub(q.mul(p[k])).toConst()));
    // v' = r + q − σ R p at v (x ↦ R x + t takes v there).
    const tDdm = r.add(q.sub(mulColumns(R, p).mul(sigma)).sub(mulColumns(R, v)));
    // One entry (or none: joint 0): the joint's matrix, as the CPU deformer (its image of v is r).
    const single = count.lessThanEqual(1).toConst();
    const a0 = jointMatrix(c, j0).linear;
    const L = [0, 1, 2].map((col) => select(single, a0[col], R[col]).toConst());
    const t = select(single, r.sub(mulColumns(a0, v)), tDdm);
    applyAffine(c, L, t.toConst());
  },
};

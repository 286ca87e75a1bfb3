/**
 * An independent skinning reference for the conformance tests, written apart from src/: it
 * reads the glTF-Transform document directly (every node channel, every JOINTS_n/WEIGHTS_n
 * set, morph targets), samples animations with its own interpolation, builds world matrices by
 * walking the node tree, takes rotations by Higham's polar iteration, and evaluates LBS, DQS
 * and CoR skinning (Le & Hodgins 2016, Algorithm 1) with corskin's documented two-phase rule
 * (stretch `K̄ = Σ w_j R_jᵀ L_j` about the vertex for DQS, about its center of rotation for CoR;
 * rigid blend of `[R_j | M_j(c) − c]`; quaternion signs against the largest weight).
 */
import type { Document, Node, Primitive, Skin } from '@gltf-transform/core';

type M4 = number[]; // column-major 16
type Q = number[]; // x y z w

function mul(a: M4, b: M4): M4 {
  const o = new Array(16).fill(0);
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) o[4 * c + r] += a[4 * k + r] * b[4 * c + k];
  return o;
}

function trs(t: number[], q: Q, s: number[]): M4 {
  const [x, y, z, w] = q;
  const R = [
    1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
    2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
    2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y),
  ]; // prettier-ignore
  return [
    R[0] * s[0], R[1] * s[0], R[2] * s[0], 0,
    R[3] * s[1], R[4] * s[1], R[5] * s[1], 0,
    R[6] * s[2], R[7] * s[2], R[8] * s[2], 0,
    t[0], t[1], t[2], 1,
  ]; // prettier-ignore
}

function apply(m: M4, p: number[]): number[] {
  return [0, 1, 2].map((r) => m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
}

/** Glued to the sampler: LINEAR (slerp for rotations), STEP, CUBICSPLINE (glTF Appendix C). */
function sample(times: number[], values: number[], c: number, interp: string, rotation: boolean, t: number): number[] {
  const K = times.length;
  const cubic = interp === 'CUBICSPLINE';
  const at = (k: number) => (cubic ? values.slice((3 * k + 1) * c, (3 * k + 2) * c) : values.slice(k * c, k * c + c));
  const norm = (v: number[]) => {
    if (!rotation) return v;
    const l = Math.hypot(...v);
    return v.map((x) => x / l);
  };
  if (t <= times[0]) return norm(at(0));
  if (t >= times[K - 1]) return norm(at(K - 1));
  let k = 0;
  while (times[k + 1] <= t) k++;
  const dt = times[k + 1] - times[k];
  const u = (t - times[k]) / dt;
  if (interp === 'STEP') return at(k);
  if (cubic) {
    const v0 = at(k), v1 = at(k + 1); // prettier-ignore
    const b0 = values.slice((3 * k + 2) * c, (3 * k + 3) * c);
    const a1 = values.slice(3 * (k + 1) * c, (3 * (k + 1) + 1) * c);
    const u2 = u * u, u3 = u2 * u; // prettier-ignore
    return norm(
      v0.map(
        (_, i) =>
          (2 * u3 - 3 * u2 + 1) * v0[i] +
          (u3 - 2 * u2 + u) * dt * b0[i] +
          (-2 * u3 + 3 * u2) * v1[i] +
          (u3 - u2) * dt * a1[i],
      ),
    );
  }
  const a = at(k);
  let b = at(k + 1);
  if (!rotation) return a.map((x, i) => x + (b[i] - x) * u);
  let d = a.reduce((s, x, i) => s + x * b[i], 0);
  if (d < 0) {
    b = b.map((x) => -x);
    d = -d;
  }
  if (d > 0.9999999) return norm(a.map((x, i) => x + (b[i] - x) * u));
  const th = Math.acos(d);
  return norm(a.map((x, i) => (Math.sin((1 - u) * th) * x + Math.sin(u * th) * b[i]) / Math.sin(th)));
}

function floats(acc: { getCount(): number; getElement(i: number, t: number[]): number[] } | null): number[][] {
  if (!acc) return [];
  const out: number[][] = [];
  for (let i = 0; i < acc.getCount(); i++) out.push([...acc.getElement(i, [])]);
  return out;
}

/** World matrices of every node and the morph weights of every node, at `time` of clip `clip` (or the rest pose). */
export function sampleScene(doc: Document, clip: number | undefined, time: number) {
  const root = doc.getRoot();
  const local = new Map<Node, { t: number[]; r: Q; s: number[]; w: number[] }>();
  for (const n of root.listNodes()) {
    const w = n.getWeights().length ? n.getWeights() : (n.getMesh()?.getWeights() ?? []);
    local.set(n, { t: [...n.getTranslation()], r: [...n.getRotation()], s: [...n.getScale()], w: [...w] });
  }
  if (clip !== undefined) {
    for (const ch of root.listAnimations()[clip].listChannels()) {
      const node = ch.getTargetNode()!;
      const path = ch.getTargetPath()!;
      const sm = ch.getSampler()!;
      const times = floats(sm.getInput()).map((v) => v[0]);
      const values = floats(sm.getOutput()).flat();
      const L = local.get(node)!;
      const c = path === 'weights' ? L.w.length : path === 'rotation' ? 4 : 3;
      if (!c) continue;
      const v = sample(times, values, c, sm.getInterpolation(), path === 'rotation', time);
      if (path === 'translation') L.t = v;
      else if (path === 'rotation') L.r = v;
      else if (path === 'scale') L.s = v;
      else L.w = v;
    }
  }
  const world = new Map<Node, M4>();
  const walk = (n: Node): M4 => {
    let m = world.get(n);
    if (m) return m;
    const L = local.get(n)!;
    const parent = n.getParentNode();
    m = parent ? mul(walk(parent), trs(L.t, L.r, L.s)) : trs(L.t, L.r, L.s);
    world.set(n, m);
    return m;
  };
  root.listNodes().forEach(walk);
  return { world, weights: new Map([...local].map(([n, L]) => [n, L.w])) };
}

/** Skinning matrices of a skin: world(joint) · IBM. */
export function skinMatrices(skin: Skin, world: Map<Node, M4>): M4[] {
  const ibm = floats(skin.getInverseBindMatrices());
  return skin
    .listJoints()
    .map((j, k) => mul(world.get(j)!, ibm[k] ?? [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]));
}

/** Bind-space positions (morphed) and every influence of a primitive. */
export function primitiveData(p: Primitive, morphWeights: number[]) {
  const pos = floats(p.getAttribute('POSITION'));
  p.listTargets().forEach((target, t) => {
    const w = morphWeights[t] ?? 0;
    if (!w) return;
    floats(target.getAttribute('POSITION')).forEach((d, i) => {
      for (let k = 0; k < 3; k++) pos[i][k] += w * d[k];
    });
  });
  const influences: [number, number][][] = pos.map(() => []);
  for (let set = 0; p.getAttribute(`JOINTS_${set}`); set++) {
    const J = floats(p.getAttribute(`JOINTS_${set}`));
    const W = floats(p.getAttribute(`WEIGHTS_${set}`));
    J.forEach((js, i) => js.forEach((j, k) => W[i][k] > 0 && influences[i].push([j, W[i][k]])));
  }
  for (const inf of influences) {
    const s = inf.reduce((a, [, w]) => a + w, 0);
    for (const x of inf) x[1] /= s;
  }
  return { positions: pos, influences };
}

/** Rotation of the polar decomposition (Higham's iteration X ← ½(X + X⁻ᵀ)), with L·diag(−1,1,1) when det L < 0. */
function polar(m: M4): { R: number[][]; K: number[][] } {
  const L = [0, 1, 2].map((r) => [0, 1, 2].map((c) => m[4 * c + r])); // L[r][c]
  const det = (a: number[][]) =>
    a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
    a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
    a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  const flip = det(L) < 0;
  let X = L.map((row) => row.map((x, c) => (flip && c === 0 ? -x : x)));
  for (let it = 0; it < 100; it++) {
    const d = det(X);
    const cof = (r: number, c: number) => {
      const rs = [0, 1, 2].filter((i) => i !== r), cs = [0, 1, 2].filter((i) => i !== c); // prettier-ignore
      return ((r + c) % 2 ? -1 : 1) * (X[rs[0]][cs[0]] * X[rs[1]][cs[1]] - X[rs[0]][cs[1]] * X[rs[1]][cs[0]]);
    };
    const next = X.map((row, r) => row.map((x, c) => 0.5 * (x + cof(r, c) / d)));
    const change = Math.max(...next.flat().map((x, i) => Math.abs(x - X.flat()[i])));
    X = next;
    if (change < 1e-15) break;
  }
  const K = [0, 1, 2].map((r) => [0, 1, 2].map((c) => X[0][r] * L[0][c] + X[1][r] * L[1][c] + X[2][r] * L[2][c]));
  return { R: X, K };
}

function quat(R: number[][]): Q {
  const tr = R[0][0] + R[1][1] + R[2][2];
  let q: Q;
  if (tr > 0) {
    const s = Math.sqrt(tr + 1) * 2;
    q = [(R[2][1] - R[1][2]) / s, (R[0][2] - R[2][0]) / s, (R[1][0] - R[0][1]) / s, s / 4];
  } else if (R[0][0] > R[1][1] && R[0][0] > R[2][2]) {
    const s = Math.sqrt(1 + R[0][0] - R[1][1] - R[2][2]) * 2;
    q = [s / 4, (R[0][1] + R[1][0]) / s, (R[0][2] + R[2][0]) / s, (R[2][1] - R[1][2]) / s];
  } else if (R[1][1] > R[2][2]) {
    const s = Math.sqrt(1 + R[1][1] - R[0][0] - R[2][2]) * 2;
    q = [(R[0][1] + R[1][0]) / s, s / 4, (R[1][2] + R[2][1]) / s, (R[0][2] - R[2][0]) / s];
  } else {
    const s = Math.sqrt(1 + R[2][2] - R[0][0] - R[1][1]) * 2;
    q = [(R[0][2] + R[2][0]) / s, (R[1][2] + R[2][1]) / s, s / 4, (R[1][0] - R[0][1]) / s];
  }
  return q;
}

function qmul(a: Q, b: Q): Q {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

function rotate(q: Q, v: number[]): number[] {
  const r = qmul(qmul(q, [v[0], v[1], v[2], 0]), [-q[0], -q[1], -q[2], q[3]]);
  return [r[0], r[1], r[2]];
}

export interface JointSplit {
  R: number[][];
  K: number[][];
  q: Q;
}

/** Polar split of every skinning matrix, once per frame. */
export function splitJoints(S: M4[]): JointSplit[] {
  return S.map((m) => {
    const { R, K } = polar(m);
    return { R, K, q: quat(R) };
  });
}

/**
 * One vertex skinned by `method` ('lbs' | 'dqs' | 'cor'), reference formulas; `center` is the
 * vertex's center of rotation for CoR.
 */
export function skinVertex(
  method: string,
  v: number[],
  influences: [number, number][],
  S: M4[],
  parts: JointSplit[],
  center?: number[],
): number[] {
  if (method === 'lbs') {
    const o = [0, 0, 0];
    for (const [j, w] of influences) apply(S[j], v).forEach((x, k) => (o[k] += w * x));
    return o;
  }
  const distinct = new Set(influences.map(([j]) => j));
  if (distinct.size === 1) return apply(S[influences[0][0]], v);
  const c = method === 'cor' ? center! : v;
  let pivot = influences[0];
  for (const x of influences) if (x[1] > pivot[1] || (x[1] === pivot[1] && x[0] < pivot[0])) pivot = x;
  const qp = parts[pivot[0]].q;
  const Kb = [0, 1, 2].map(() => [0, 0, 0]);
  const real = [0, 0, 0, 0];
  const dual = [0, 0, 0, 0];
  const lbsC = [0, 0, 0];
  for (const [j, w] of influences) {
    const { K, q } = parts[j];
    const s = q.reduce((a, x, i) => a + x * qp[i], 0) < 0 ? -w : w;
    for (let r = 0; r < 3; r++) for (let k = 0; k < 3; k++) Kb[r][k] += w * K[r][k];
    q.forEach((x, i) => (real[i] += s * x));
    const mc = apply(S[j], c);
    mc.forEach((x, k) => (lbsC[k] += w * x));
    // dual quaternion of [R_j | M_j(c) − c]: ½ (t, 0) ⊗ q
    const d = qmul([mc[0] - c[0], mc[1] - c[1], mc[2] - c[2], 0], q);
    d.forEach((x, i) => (dual[i] += 0.5 * s * x));
  }
  const len = Math.hypot(...real);
  const r = real.map((x) => x / len) as Q;
  const x = [0, 1, 2].map(
    (row) => Kb[row][0] * (v[0] - c[0]) + Kb[row][1] * (v[1] - c[1]) + Kb[row][2] * (v[2] - c[2]),
  );
  if (method === 'cor') {
    const y = rotate(r, x);
    return [0, 1, 2].map((k) => y[k] + lbsC[k]);
  }
  const d = dual.map((e) => e / len);
  const t = qmul(d, [-r[0], -r[1], -r[2], r[3]])
    .slice(0, 3)
    .map((e) => 2 * e);
  const y = rotate(r, x);
  return [0, 1, 2].map((k) => y[k] + t[k] + c[k]);
}

/** What {@link referenceError} needs of a corskin model (kept structural: no import from src). */
interface ModelLike {
  skin: Skin;
  meshNodes: Node[];
  parts: { primitive: Primitive; vertexOffset: number; vertexCount: number }[];
  mesh: { centersOfRotation?: Float32Array };
}

/**
 * Largest distance, relative to `diag`, between corskin's posed positions `ours` (merged layout
 * of `model`) and the reference for `method` with the scene sampled by {@link sampleScene};
 * at most `limit` vertices per model (every vertex below it, else sampled with `random`).
 */
export function referenceError(
  model: ModelLike,
  ours: Float32Array,
  method: string,
  scene: ReturnType<typeof sampleScene>,
  diag: number,
  limit = Infinity,
  random: () => number = Math.random,
): number {
  const S = skinMatrices(model.skin, scene.world);
  const parts = method === 'lbs' ? [] : splitJoints(S);
  const c = model.mesh.centersOfRotation;
  let worst = 0;
  for (const part of model.parts) {
    const owner = model.meshNodes.find((n) => n.getMesh()?.listPrimitives().includes(part.primitive))!;
    const ref = primitiveData(part.primitive, scene.weights.get(owner) ?? []);
    const samples = Math.min(part.vertexCount, Math.ceil(limit / model.parts.length));
    for (let s = 0; s < samples; s++) {
      const i = samples === part.vertexCount ? s : Math.floor(random() * part.vertexCount);
      const v = part.vertexOffset + i;
      const center = c ? [c[3 * v], c[3 * v + 1], c[3 * v + 2]] : undefined;
      const r = skinVertex(method, ref.positions[i], ref.influences[i], S, parts, center);
      const e = Math.hypot(ours[3 * v] - r[0], ours[3 * v + 1] - r[1], ours[3 * v + 2] - r[2]) / diag;
      worst = Math.max(worst, Number.isNaN(e) ? Infinity : e);
    }
  }
  return worst;
}

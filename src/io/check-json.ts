/**
 * A structural check of a glTF file's JSON before glTF-Transform parses it: the things that
 * would otherwise hang (an accessor or sparse count in the billions, a node cycle), crash at the
 * end, or be accepted silently (an index out of range, a 4-number translation), each reported
 * in the file's own terms — which accessor, which node. It checks structure and sizes, not
 * everything the Khronos validator does.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';

/** The parts of a glTF JSON this check reads. */
interface GltfJson {
  buffers?: { byteLength?: unknown; uri?: unknown; extensions?: unknown }[];
  bufferViews?: { buffer?: unknown; byteOffset?: unknown; byteLength?: unknown; byteStride?: unknown }[];
  accessors?: {
    bufferView?: unknown;
    byteOffset?: unknown;
    componentType?: unknown;
    count?: unknown;
    type?: unknown;
    sparse?: {
      count?: unknown;
      indices?: { bufferView?: unknown; componentType?: unknown };
      values?: { bufferView?: unknown };
    };
  }[];
  nodes?: {
    children?: unknown;
    mesh?: unknown;
    skin?: unknown;
    translation?: unknown;
    rotation?: unknown;
    scale?: unknown;
    matrix?: unknown;
  }[];
  meshes?: { primitives?: unknown }[];
  skins?: { joints?: unknown; inverseBindMatrices?: unknown }[];
  animations?: {
    samplers?: { input?: unknown; output?: unknown }[];
    channels?: { sampler?: unknown; target?: { node?: unknown } }[];
  }[];
}

const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
const TYPE_COMPONENTS: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };
/** Far beyond any character (2^27 elements): larger counts are corrupt, not big. */
const MAX_COUNT = 1 << 27;

/**
 * Checks the JSON of a glTF file (the JSON chunk of a GLB, or the `.gltf` itself).
 * @param binLength byte length of the GLB's BIN chunk (the buffer without a uri), if any
 * @throws CorskinError naming `file` and the element at fault
 */
export function checkGltfJson(json: unknown, file: string, binLength?: number): void {
  const g = json as GltfJson;
  const fail = (what: string) => {
    throw new CorskinError(what, file);
  };
  const isIndex = (v: unknown, n: number) => Number.isInteger(v) && (v as number) >= 0 && (v as number) < n;
  const list = <T>(v: T[] | undefined, name: string): T[] => {
    if (v === undefined) return [];
    if (!Array.isArray(v)) fail(`"${name}" is not an array`);
    return v;
  };
  const buffers = list(g.buffers, 'buffers');
  const views = list(g.bufferViews, 'bufferViews');
  const accessors = list(g.accessors, 'accessors');
  const nodes = list(g.nodes, 'nodes');
  const meshes = list(g.meshes, 'meshes');
  const skins = list(g.skins, 'skins');

  buffers.forEach((b, i) => {
    if (!Number.isInteger(b?.byteLength) || (b.byteLength as number) < 0) fail(`buffer ${i} has no valid byteLength`);
    if (
      i === 0 &&
      b.uri === undefined &&
      !b.extensions &&
      binLength !== undefined &&
      (b.byteLength as number) > binLength
    )
      fail(`buffer ${i} declares ${b.byteLength} bytes, the GLB's binary chunk holds ${binLength}`);
  });
  views.forEach((v, i) => {
    if (!isIndex(v?.buffer, buffers.length))
      fail(`bufferView ${i} refers to buffer ${shown(v?.buffer)}, which does not exist`);
    const offset = v.byteOffset ?? 0;
    if (!Number.isInteger(offset) || (offset as number) < 0) fail(`bufferView ${i} has an invalid byteOffset`);
    if (!Number.isInteger(v.byteLength) || (v.byteLength as number) < 1)
      fail(`bufferView ${i} has an invalid byteLength`);
    const end = (offset as number) + (v.byteLength as number);
    const size = buffers[v.buffer as number].byteLength as number;
    if (end > size) fail(`bufferView ${i} ends at byte ${end}, past the end of buffer ${v.buffer} (${size} bytes)`);
  });
  accessors.forEach((a, i) => {
    const bytes = COMPONENT_BYTES[a?.componentType as number];
    const comps = TYPE_COMPONENTS[a?.type as string];
    if (!bytes) fail(`accessor ${i} has an unknown componentType ${a?.componentType}`);
    if (!comps) fail(`accessor ${i} has an unknown type ${shown(a.type)}`);
    if (!Number.isInteger(a.count) || (a.count as number) < 1 || (a.count as number) > MAX_COUNT)
      fail(`accessor ${i} has an invalid count ${shown(a.count)}`);
    const count = a.count as number;
    if (a.bufferView !== undefined) {
      if (!isIndex(a.bufferView, views.length))
        fail(`accessor ${i} refers to bufferView ${shown(a.bufferView)}, which does not exist`);
      const view = views[a.bufferView as number];
      const offset = a.byteOffset ?? 0;
      if (!Number.isInteger(offset) || (offset as number) < 0) fail(`accessor ${i} has an invalid byteOffset`);
      const stride = (view.byteStride as number | undefined) ?? bytes * comps;
      const need = (offset as number) + stride * (count - 1) + bytes * comps;
      if (need > (view.byteLength as number))
        fail(`accessor ${i} needs ${need} bytes of bufferView ${a.bufferView}, which has ${view.byteLength}`);
    }
    if (a.sparse !== undefined) {
      const sc = a.sparse?.count;
      if (!Number.isInteger(sc) || (sc as number) < 1 || (sc as number) > count)
        fail(`accessor ${i}: sparse count ${sc} is not between 1 and the accessor's count ${count}`);
      if (!isIndex(a.sparse.indices?.bufferView, views.length) || !isIndex(a.sparse.values?.bufferView, views.length))
        fail(`accessor ${i}: sparse indices or values refer to a bufferView that does not exist`);
    }
  });

  // Nodes: indices in range, every node at most one parent, no cycle; transforms well formed.
  const parent = new Int32Array(nodes.length).fill(-1);
  nodes.forEach((n, i) => {
    const children = list(n?.children as number[] | undefined, `nodes[${i}].children`);
    for (const c of children) {
      if (!isIndex(c, nodes.length)) fail(`node ${i} has child ${c}, which does not exist`);
      if (parent[c] >= 0 && parent[c] !== i) fail(`node ${c} has two parents (nodes ${parent[c]} and ${i})`);
      parent[c] = i;
    }
    const vec = (v: unknown, k: number, name: string) => {
      if (v === undefined) return;
      if (!Array.isArray(v) || v.length !== k || !v.every((x) => typeof x === 'number' && Number.isFinite(x)))
        fail(`node ${i}: ${name} must be ${k} finite numbers`);
    };
    vec(n.translation, 3, 'translation');
    vec(n.rotation, 4, 'rotation');
    vec(n.scale, 3, 'scale');
    vec(n.matrix, 16, 'matrix');
    if (n.mesh !== undefined && !isIndex(n.mesh, meshes.length))
      fail(`node ${i} refers to mesh ${shown(n.mesh)}, which does not exist`);
    if (n.skin !== undefined && !isIndex(n.skin, skins.length))
      fail(`node ${i} refers to skin ${shown(n.skin)}, which does not exist`);
  });
  const state = new Uint8Array(nodes.length); // 0 unseen, 1 on the path, 2 done
  for (let start = 0; start < nodes.length; start++) {
    // Walk up the parent links: a cycle returns to a node on the path.
    let k = start;
    const path: number[] = [];
    while (k >= 0 && state[k] === 0) {
      state[k] = 1;
      path.push(k);
      k = parent[k];
    }
    if (k >= 0 && state[k] === 1) fail(`the node hierarchy has a cycle through node ${k}`);
    for (const p of path) state[p] = 2;
  }
  meshes.forEach((m, i) => {
    const prims = list(m?.primitives as unknown[] | undefined, `meshes[${i}].primitives`);
    if (!prims.length) fail(`mesh ${i} has no primitives`);
  });
  skins.forEach((s, i) => {
    const joints = list(s?.joints as unknown[] | undefined, `skins[${i}].joints`);
    if (!joints.length) fail(`skin ${i} has no joints`);
    for (const j of joints)
      if (!isIndex(j, nodes.length)) fail(`skin ${i} names joint node ${j}, which does not exist`);
    if (new Set(joints).size !== joints.length) fail(`skin ${i} names a joint twice`);
    if (s.inverseBindMatrices !== undefined) {
      if (!isIndex(s.inverseBindMatrices, accessors.length))
        fail(`skin ${i} refers to inverseBindMatrices accessor ${shown(s.inverseBindMatrices)}, which does not exist`);
      const a = accessors[s.inverseBindMatrices as number];
      if (a.type !== 'MAT4' || a.componentType !== 5126 || (a.count as number) < joints.length)
        fail(`skin ${i}: inverseBindMatrices accessor ${s.inverseBindMatrices} must hold ${joints.length} float MAT4`);
    }
  });
  list(g.animations, 'animations').forEach((anim, a) => {
    const samplers = list(anim?.samplers, `animations[${a}].samplers`);
    samplers.forEach((smp, k) => {
      if (!isIndex(smp?.input, accessors.length) || !isIndex(smp.output, accessors.length))
        fail(`animation ${a}, sampler ${k} has no valid input and output accessors`);
    });
    for (const ch of list(anim.channels, `animations[${a}].channels`)) {
      if (!isIndex(ch?.sampler, samplers.length)) fail(`animation ${a} has a channel without a valid sampler`);
      if (ch.target?.node !== undefined && !isIndex(ch.target.node, nodes.length))
        fail(`animation ${a} targets node ${ch.target.node}, which does not exist`);
    }
  });
}

/**
 * Checks that every sparse accessor's indices lie within the accessor (glTF-Transform would
 * drop the others silently). Needs the buffers' bytes.
 * @param buffers the bytes of each buffer (undefined where not available)
 * @throws CorskinError naming `file` and the accessor
 */
export function checkSparseIndices(json: unknown, buffers: (Uint8Array | undefined)[], file: string): void {
  const g = json as GltfJson;
  (g.accessors ?? []).forEach((a, i) => {
    const sparse = a.sparse;
    if (!sparse) return;
    const view = g.bufferViews?.[sparse.indices!.bufferView as number];
    const data = view && buffers[view.buffer as number];
    if (!view || !data) return;
    const type = sparse.indices!.componentType as number;
    const size = COMPONENT_BYTES[type];
    if (!size || (type !== 5121 && type !== 5123 && type !== 5125))
      throw new CorskinError(`accessor ${i}: sparse indices must be unsigned integers`, file);
    const offset =
      ((view.byteOffset as number) ?? 0) + (((sparse.indices as { byteOffset?: number }).byteOffset as number) ?? 0);
    const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const count = sparse.count as number;
    if (offset + size * count > data.byteLength)
      throw new CorskinError(`accessor ${i}: sparse indices run past the buffer`, file);
    for (let k = 0; k < count; k++) {
      const at = offset + size * k;
      const index = size === 1 ? dv.getUint8(at) : size === 2 ? dv.getUint16(at, true) : dv.getUint32(at, true);
      if (index >= (a.count as number))
        throw new CorskinError(`accessor ${i}: sparse index ${index} is outside its ${a.count} elements`, file);
    }
  });
}

/** A JSON value as the message shows it: a missing one says so, strings are quoted, the rest as JSON. */
function shown(value: unknown): string {
  if (value === undefined) return '(missing)';
  return typeof value === 'number' ? String(value) : JSON.stringify(value);
}

/**
 * The structure of a glTF's JSON that glTF-Transform takes for granted, checked before it parses
 * it (see {@link checkStructure}).
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';

/** glTF's top-level arrays, each with the name of one of its elements in messages. */
const COLLECTIONS = {
  accessors: 'accessor',
  animations: 'animation',
  buffers: 'buffer',
  bufferViews: 'bufferView',
  cameras: 'camera',
  images: 'image',
  materials: 'material',
  meshes: 'mesh',
  nodes: 'node',
  samplers: 'sampler',
  scenes: 'scene',
  skins: 'skin',
  textures: 'texture',
} as const;
type Collection = keyof typeof COLLECTIONS;
type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The structure glTF-Transform takes for granted, checked before it parses the JSON (else a
 * missing `asset`, a `scenes` object or a scene naming a node that does not exist fail deep
 * inside it with a JavaScript message, or are accepted silently): the JSON is an object with an
 * `asset.version` 2.x; every top-level collection is an array of objects; every index glTF-Transform
 * follows (scene nodes, the default scene, primitive attributes, indices, material and morph
 * targets, node cameras, skin skeletons, texture sources and samplers, material textures, image
 * buffer views) names an element that exists; every animation channel has a target with a path.
 * Sizes, accessors, node trees and skins are {@link checkGltfJson}'s.
 * @throws CorskinError naming `path` and the element at fault
 */
export function checkStructure(json: unknown, path: string): void {
  const fail = (what: string): never => {
    throw new CorskinError(what, path);
  };
  if (!isObject(json)) return fail('the glTF JSON is not an object');
  const asset = json.asset;
  if (!isObject(asset) || asset.version === undefined) fail('no asset object (glTF 2.0 requires asset.version)');
  else if (typeof asset.version !== 'string' || !/^2\.\d+$/.test(asset.version))
    fail(`asset.version is ${JSON.stringify(asset.version)}: only glTF 2.0 files are read`);
  for (const key of ['extensionsUsed', 'extensionsRequired']) {
    const v = json[key];
    if (v !== undefined && !(Array.isArray(v) && v.every((x) => typeof x === 'string')))
      fail(`"${key}" is not an array of extension names`);
  }
  const lists = {} as Record<Collection, JsonObject[]>;
  for (const [key, one] of Object.entries(COLLECTIONS) as [Collection, string][]) {
    const v = json[key] ?? [];
    if (!Array.isArray(v)) fail(`"${key}" is not an array`);
    (v as unknown[]).forEach((e, i) => isObject(e) || fail(`${one} ${i} is not an object`));
    lists[key] = v as JsonObject[];
  }
  /** `value`, when present, must index `key`. */
  const ref = (value: unknown, key: Collection, where: string) => {
    if (value === undefined) return;
    const n = lists[key].length;
    if (!(Number.isInteger(value) && (value as number) >= 0 && (value as number) < n))
      fail(
        `${where} names ${COLLECTIONS[key]} ${JSON.stringify(value)}, but the file has ${n} ${n === 1 ? COLLECTIONS[key] : key}`,
      );
  };
  ref(json.scene, 'scenes', 'the default scene ("scene")');
  lists.scenes.forEach((scene, i) => {
    if (scene.nodes === undefined) return;
    if (!Array.isArray(scene.nodes)) fail(`scene ${i}: "nodes" is not an array`);
    for (const n of scene.nodes as unknown[]) ref(n, 'nodes', `scene ${i}`);
  });
  lists.nodes.forEach((node, i) => ref(node.camera, 'cameras', `node ${i}`));
  lists.skins.forEach((skin, i) => ref(skin.skeleton, 'nodes', `skin ${i} ("skeleton")`));
  lists.meshes.forEach((mesh, m) => {
    if (!Array.isArray(mesh.primitives)) return; // checkGltfJson's
    (mesh.primitives as unknown[]).forEach((prim, k) => {
      const where = `mesh ${m}, primitive ${k}`;
      if (!isObject(prim)) return fail(`${where} is not an object`);
      if (!isObject(prim.attributes)) fail(`${where} has no attributes object`);
      const attributes = (target: unknown, what: string) =>
        Object.entries(target as JsonObject).forEach(([name, a]) => ref(a, 'accessors', `${what} ${name}`));
      attributes(prim.attributes, `${where}, attribute`);
      ref(prim.indices, 'accessors', `${where} (indices)`);
      ref(prim.material, 'materials', where);
      if (prim.targets === undefined) return;
      if (!Array.isArray(prim.targets)) fail(`${where}: "targets" is not an array`);
      (prim.targets as unknown[]).forEach((t, ti) => {
        if (!isObject(t)) fail(`${where}, morph target ${ti} is not an object`);
        attributes(t, `${where}, morph target ${ti}, attribute`);
      });
    });
  });
  lists.animations.forEach((anim, a) => {
    if (!Array.isArray(anim.channels)) return; // checkGltfJson's
    (anim.channels as unknown[]).forEach((ch, c) => {
      const where = `animation ${a}, channel ${c}`;
      if (!isObject(ch)) return fail(`${where} is not an object`);
      if (!isObject(ch.target)) fail(`${where} has no target (glTF requires target.path)`);
      if (typeof (ch.target as JsonObject).path !== 'string') fail(`${where} has no target path`);
    });
  });
  lists.textures.forEach((t, i) => {
    ref(t.source, 'images', `texture ${i}`);
    ref(t.sampler, 'samplers', `texture ${i}`);
  });
  lists.images.forEach((image, i) => {
    if (image.uri === undefined && image.bufferView === undefined)
      fail(`image ${i} has neither a uri nor a bufferView`);
    ref(image.bufferView, 'bufferViews', `image ${i}`);
  });
  lists.materials.forEach((material, i) => {
    const pbr = isObject(material.pbrMetallicRoughness) ? material.pbrMetallicRoughness : {};
    const slots: [string, unknown][] = [
      ['baseColorTexture', pbr.baseColorTexture],
      ['metallicRoughnessTexture', pbr.metallicRoughnessTexture],
      ['normalTexture', material.normalTexture],
      ['occlusionTexture', material.occlusionTexture],
      ['emissiveTexture', material.emissiveTexture],
    ];
    for (const [slot, info] of slots) {
      if (info === undefined) continue;
      if (!isObject(info)) fail(`material ${i}: ${slot} is not an object`);
      else ref(info.index, 'textures', `material ${i} (${slot})`);
      if (isObject(info) && info.index === undefined) fail(`material ${i}: ${slot} has no texture index`);
    }
  });
}

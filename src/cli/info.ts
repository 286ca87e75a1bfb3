/**
 * `corskin info`: what a glTF file's skins hold.
 * @module
 */
import { extractSkinnedModels, type SkinnedModel } from '../io/gltf.js';
import { CorskinError } from '../core/errors.js';
import { readDocument } from '../io/node-io.js';
import { methodInfo, SKINNING_METHODS } from '../deformers/registry.js';
import { formatTable, type Io } from './ui.js';

/** JSON description of one skin, as printed by `corskin info --json`. */
export interface SkinInfo {
  name: string;
  joints: number;
  jointNames: string[];
  /** Each joint's nearest ancestor among `jointNames` (an index), or -1 for a joint with none. */
  jointParents: number[];
  primitives: number;
  vertices: number;
  triangles: number;
  influencesPerVertex: number;
  /** Number of vertices by count of non-zero influences ("1", "2", …). */
  influenceHistogram: Record<string, number>;
  centersOfRotation: { present: boolean; sigma?: number; epsilon?: number; version?: string };
  /**
   * What the file stores for each method module that precomputes (`corskin precompute --method
   * <id>`): the method's id, whether its data is there, and the method's summary of it (or why
   * stored data could not be read).
   */
  methodData: { method: string; stored: boolean; summary?: string }[];
  /** Morph targets (blend shapes) of the skin's meshes: their count, over how many meshes' weight vectors. */
  morphTargets: { targets: number; meshes: number };
  /** Per clip: its channels on the skeleton (the joints and their animated ancestors) and on the morph weights. */
  animations: { name: string; duration: number; channels: number; morphChannels: number }[];
  /** Animation channels on nodes that do not move this skin (ignored). */
  ignoredAnimationChannels: number;
  warnings: string[];
}

/** Each skin joint's nearest ancestor among the skin's joints (past non-joint nodes), or -1. */
function skinJointParents(skeleton: SkinnedModel['skeleton']): number[] {
  return Array.from({ length: skeleton.skinJoints }, (_, j) => {
    let p = skeleton.parents[j];
    while (p >= skeleton.skinJoints) p = skeleton.parents[p];
    return p;
  });
}

/**
 * Describes one skinned model.
 * @param methodData what the file stores for the method modules (see {@link SkinInfo.methodData})
 */
export function describeModel(model: SkinnedModel, methodData: SkinInfo['methodData'] = []): SkinInfo {
  const { mesh } = model;
  const K = mesh.influences;
  const n = mesh.positions.length / 3;
  const hist: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const seen = new Set<number>();
    for (let k = K * i; k < K * i + K; k++) if (mesh.weights[k] > 0) seen.add(mesh.joints[k]);
    hist[seen.size] = (hist[seen.size] ?? 0) + 1;
  }
  return {
    name: model.name,
    joints: model.jointNodes.length,
    jointNames: model.skeleton.jointNames.slice(0, model.skeleton.skinJoints),
    jointParents: skinJointParents(model.skeleton),
    primitives: model.parts.length,
    vertices: n,
    triangles: mesh.triangles.length / 3,
    influencesPerVertex: K,
    influenceHistogram: hist,
    centersOfRotation: mesh.centersOfRotation ? { present: true, ...model.corParameters } : { present: false },
    methodData,
    morphTargets: {
      targets: model.morphGroups.reduce((sum, g) => sum + g.targets.length, 0),
      meshes: model.morphGroups.length,
    },
    animations: model.animations.map((a) => ({
      name: a.name,
      duration: a.duration,
      channels: a.channels.length,
      morphChannels: a.morphChannels?.length ?? 0,
    })),
    ignoredAnimationChannels: model.ignoredAnimationChannels,
    warnings: model.warnings,
  };
}

/**
 * The joint tree as lines: each joint's name under its parent's, indented two spaces a level,
 * depth first in the skin's order (roots: the joints whose parent is not a joint of the skin).
 * @param parents per joint, its parent's index in `names` or -1
 */
export function jointTree(names: readonly string[], parents: readonly number[]): string[] {
  const children = names.map(() => [] as number[]);
  const roots: number[] = [];
  parents.forEach((p, j) => (p >= 0 ? children[p] : roots).push(j));
  const lines: string[] = [];
  const visit = (j: number, depth: number): void => {
    lines.push(`${'  '.repeat(depth)}${names[j]}`);
    for (const c of children[j]) visit(c, depth + 1);
  };
  for (const r of roots) visit(r, 0);
  return lines;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Runs `corskin info`. @throws CorskinError on bad input */
export async function infoCommand(
  io: Io,
  input: string,
  o: { json?: boolean; brief?: boolean; joints?: boolean },
): Promise<void> {
  const document = await readDocument(input);
  const models = extractSkinnedModels(document, input);
  // The method modules' stored data, read as deform reads it (loaded only here).
  const { methodModule } = await import('../methods/index.js');
  const modules = SKINNING_METHODS.filter((m) => m.precomputes && 'module' in m).map((m) => methodModule(m.id)!);
  const skins = models.map((model) =>
    describeModel(
      model,
      modules.map((module) => {
        try {
          module.read?.(document, model, input);
        } catch (e) {
          if (!(e instanceof CorskinError)) throw e;
          return { method: module.id, stored: false, summary: `stored but unreadable: ${e.message}` };
        }
        const stored = !module.missing?.(model.mesh);
        return { method: module.id, stored, ...(stored && { summary: module.summary?.(model.mesh) }) };
      }),
    ),
  );
  // A file may hold skins that bind no mesh: those are not counted, and skins keep the file's numbers.
  const inFile = document.getRoot().listSkins().length;
  const counted = `${skins.length} skin${skins.length === 1 ? '' : 's'}${inFile > skins.length ? ` binding a mesh (of the file's ${inFile}, numbered as in the file)` : ''}`; // prettier-ignore
  if (o.json) {
    io.out(JSON.stringify({ file: input, skins }, null, o.brief ? undefined : 2));
    return;
  }
  if (o.brief) {
    // Several files: one line each.
    const sum = (f: (s: SkinInfo) => number) => skins.reduce((a, s) => a + f(s), 0);
    const clips = new Set(skins.flatMap((s) => s.animations.map((a) => a.name)));
    const cors = skins.filter((s) => s.centersOfRotation.present).length;
    io.out(
      `${input}: ${counted}, ${Math.max(...skins.map((s) => s.joints))} joints, ${sum((s) => s.vertices)} vertices, ${sum((s) => s.triangles)} triangles, up to ${Math.max(...skins.map((s) => s.influencesPerVertex))} influences, CoRs ${cors === skins.length ? 'present' : cors ? `in ${cors} of ${skins.length} skins` : 'absent'}, ${clips.size} animation${clips.size === 1 ? '' : 's'}`,
    );
    return;
  }
  io.out(`${input}: ${counted}`);
  for (const s of skins) {
    io.out('');
    io.out(
      `${s.name}: ${s.joints} joints, ${s.primitives} primitives, ${s.vertices} vertices, ${s.triangles} triangles, ${s.influencesPerVertex} influence slots per vertex`,
    );
    if (o.joints) io.out(['joints (the names --joint takes):', ...jointTree(s.jointNames, s.jointParents).map((l) => `  ${l}`)].join('\n')); // prettier-ignore
    io.out(
      formatTable(
        ['influences', 'vertices'],
        Object.entries(s.influenceHistogram).map(([k, v]) => [k, v]),
      ),
    );
    const c = s.centersOfRotation;
    io.out(
      c.present
        ? `centers of rotation: present (σ = ${c.sigma ?? '?'}, ε = ${c.epsilon ?? '?'}, corskin ${c.version ?? '?'})`
        : 'centers of rotation: absent (run `corskin precompute`)',
    );
    for (const d of s.methodData)
      io.out(
        `${methodInfo(d.method).label}: ${d.stored ? `stored${d.summary ? ` (${d.summary})` : ''}` : (d.summary ?? `absent (corskin precompute --method ${d.method})`)}`,
      );
    const m = s.morphTargets;
    if (m.targets)
      io.out(`morph targets: ${m.targets} in ${m.meshes} mesh${m.meshes === 1 ? '' : 'es'} (applied before skinning)`);
    for (const a of s.animations)
      io.out(
        `animation "${a.name}": ${a.duration.toFixed(3)} s, ${plural(a.channels, 'channel')} on the skeleton${a.morphChannels ? `, ${a.morphChannels} on morph weights` : ''}`,
      );
    if (s.ignoredAnimationChannels)
      io.out(`animation channels on nodes that do not move this skin (ignored): ${s.ignoredAnimationChannels}`);
    for (const w of s.warnings) io.out(`warning: ${w}`);
  }
}

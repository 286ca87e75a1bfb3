/**
 * `corskin templates build|list`: skinning templates (Ju, Zhou, van de Panne, Cohen-Or, Neumann,
 * "Reusable Skinning Templates Using Cage-based Deformations", SIGGRAPH Asia 2008) around a chain
 * skeleton, stored in the glTF file with the cage and its binding.
 * @module
 */
import { skinCageToSkeleton } from '../cage/rig.js';
import { CorskinError } from '../core/errors.js';
import { readTemplateRig, storeTemplates, writeCageRig } from '../io/cage-gltf.js';
import { checkNotOverwritingInput, checkOutputPath, readBytes } from '../io/files.js';
import { extractSkinnedModels, type SkinnedModel } from '../io/gltf.js';
import { readDocument, writeDocument } from '../io/node-io.js';
import { buildTemplateRig, createTemplateDeformer, setBoneTemplate, type TemplateRig } from '../templates/rig.js';
import { bakeTemplateClips } from '../io/template-bake.js';
import { DEFAULT_TEMPLATE_LIBRARY, parseTemplateLibrary, type TemplateLibrary } from '../templates/library.js';
import type { Io } from './ui.js';

/** Reads a template library file (JSON). @throws CorskinError naming the file */
export async function readTemplateLibrary(file: string): Promise<TemplateLibrary> {
  const text = (await readBytes(file)).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new CorskinError(`template library: not JSON (${(e as Error).message})`, file);
  }
  return parseTemplateLibrary(json, file);
}

/**
 * Applies `--template JOINT=ID,…` (the bones that start at a joint) to `rig`.
 * @throws CorskinError for a malformed item, a joint that starts no template bone, an unknown template
 */
export function applyTemplateChoices(rig: TemplateRig, model: SkinnedModel, choices: string | undefined): void {
  if (!choices) return;
  const starts = new Set(rig.limbs.flatMap((l) => l.chain));
  for (const item of choices.split(',')) {
    const [joint, id] = item.split('=').map((x) => x.trim());
    if (!joint || !id) throw new CorskinError(`--template: "${item}" is not JOINT=TEMPLATE`);
    const j = model.skeleton.jointNames.indexOf(joint);
    if (!starts.has(j))
      throw new CorskinError(
        `--template: no template bone starts at "${joint}" (bones start at ${[...starts].map((s) => model.skeleton.jointNames[s]).join(', ')})`,
      );
    setBoneTemplate(rig, j, id);
  }
}

function oneModel(document: Awaited<ReturnType<typeof readDocument>>, input: string): SkinnedModel {
  const models = extractSkinnedModels(document, input);
  if (models.length > 1)
    throw new CorskinError(`has ${models.length} skins; templates are built for a file with one skin`, input);
  return models[0];
}

/** Runs `corskin templates build`. @throws CorskinError on bad input (nothing written) */
export async function templatesBuildCommand(
  io: Io,
  input: string,
  o: {
    output: string;
    library?: string;
    template?: string;
    bake?: boolean;
    bakeRate?: number;
    force?: boolean;
    compress?: boolean;
  },
): Promise<void> {
  checkOutputPath(o.output, ['.glb', '.gltf']);
  checkNotOverwritingInput(o.output, o.library ? [input, o.library] : [input], !!o.force);
  const start = performance.now();
  const library = o.library ? await readTemplateLibrary(o.library) : DEFAULT_TEMPLATE_LIBRARY;
  const document = await readDocument(input);
  const model = oneModel(document, input);
  let rig: TemplateRig;
  try {
    rig = buildTemplateRig(model.mesh, model.skeleton, library);
  } catch (e) {
    if (e instanceof CorskinError) throw new CorskinError(`${model.name}: ${e.message}`, input);
    throw e;
  }
  applyTemplateChoices(rig, model, o.template);
  if (o.bake) {
    const baked = bakeTemplateClips(document, model, createTemplateDeformer(rig), { rate: o.bakeRate, file: input });
    await writeDocument(document, o.output, { compress: o.compress, inputs: [input], force: o.force });
    io.out(
      `${model.name}: templates baked over ${model.animations.length} clip(s) at ${o.bakeRate ?? 30} samples/s: ${baked.targets} morph targets (${(baked.bytes / 1e6).toFixed(1)} MB), a weights channel per clip`,
    );
    io.out(`wrote ${o.output} in ${((performance.now() - start) / 1000).toFixed(2)} s`);
    return;
  }
  const skin = skinCageToSkeleton(rig.cage, model.skeleton);
  writeCageRig(
    document,
    model,
    {
      cage: rig.cage,
      binding: rig.binding,
      cageInfluences: skin.influences,
      cageJoints: skin.joints,
      cageWeights: skin.weights,
    },
    storeTemplates(rig, model.skeleton.jointNames),
  );
  await writeDocument(document, o.output, { compress: o.compress, inputs: [input], force: o.force });
  io.out(
    `${model.name}: template cages of ${rig.cage.positions.length / 3} vertices and ${rig.cage.triangles.length / 3} triangles around ${bonesOf(rig)} bones in ${rig.limbs.length} limbs, bound with PMVC`,
  );
  const uncovered = uncoveredJoints(rig, model);
  if (uncovered.length) io.out(`joints no limb covers (skinned linearly): ${uncovered.join(', ')}`);
  io.out(`wrote ${o.output} in ${((performance.now() - start) / 1000).toFixed(2)} s`);
}

/** Runs `corskin templates list`: the stored bones and their templates, and the library's bone templates. */
export async function templatesListCommand(io: Io, input: string): Promise<void> {
  const document = await readDocument(input);
  const model = oneModel(document, input);
  const rig = readTemplateRig(document, model, input);
  if (!rig) {
    io.out(`${input}: no skinning templates (build them with corskin templates build)`);
    io.out(`library (default): ${DEFAULT_TEMPLATE_LIBRARY.templates.map((t) => `${t.id} (${t.kind})`).join(', ')}`);
    return;
  }
  const name = (j: number) => model.skeleton.jointNames[j];
  io.out(
    `${input}: ${bonesOf(rig)} template bones in ${rig.limbs.length} limbs, cage of ${rig.cage.positions.length / 3} vertices`,
  );
  for (const limb of rig.limbs) {
    io.out(`  limb ${name(limb.chain[0])} → ${name(limb.chain[limb.chain.length - 1])}:`);
    limb.chain.forEach((j, i) => io.out(`    bone from ${name(j)}: ${limb.boneTemplates[i]}`));
  }
  const uncovered = uncoveredJoints(rig, model);
  if (uncovered.length) io.out(`  joints no limb covers (skinned linearly): ${uncovered.join(', ')}`);
  io.out(
    `compatible bone templates: ${rig.library.templates
      .filter((t) => t.kind === 'bone')
      .map((t) => `${t.id}${t.description ? ` — ${t.description}` : ''}`)
      .join('; ')}`,
  );
}

const bonesOf = (rig: TemplateRig) => rig.limbs.reduce((s, l) => s + l.chain.length, 0);
const uncoveredJoints = (rig: TemplateRig, model: SkinnedModel) => {
  const covered = new Set(rig.limbs.flatMap((l) => l.chain));
  return model.skeleton.jointNames.filter((_, j) => !covered.has(j));
};

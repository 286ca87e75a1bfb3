/**
 * `corskin templates build|list`: skinning templates (Ju, Zhou, van de Panne, Cohen-Or, Neumann,
 * "Reusable Skinning Templates Using Cage-based Deformations", SIGGRAPH Asia 2008) around a
 * skeleton's limbs, a corrective over DQS, stored in the glTF file with the cage and its binding.
 * @module
 */
import { CorskinError } from '../../core/errors.js';
import { readTemplateRig } from './storage.js';
import { removeCageRig } from '../../io/cage-gltf.js';
import { buildTemplateRigs, storeTemplateRigs, templateBones } from './node.js';
import { skinOutsideMessage, templateSkinOutside } from './outside.js';
import { checkNotOverwritingInput, checkOutputPath, readBytes } from '../../io/files.js';
import { extractSkinnedModels } from '../../io/gltf.js';
import { readDocument, writeDocument } from '../../io/node-io.js';
import { NO_LIMB_TO_TEMPLATE } from './rig.js';
import { createTemplateDeformer } from './deformer.js';
import { bakeTemplateClips } from '../../io/morph-bake.js';
import { DEFAULT_BAKE_RATE } from '../../bake/samples.js';
import {
  DEFAULT_TEMPLATE_LIBRARY,
  incidentBones,
  parseTemplateLibrary,
  type TemplateDefinition,
  type TemplateLibrary,
} from './library.js';
import { warnIgnored, type Io } from '../../cli/ui.js';

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

/** Runs `corskin templates build`. @throws CorskinError on bad input (nothing written) */
export async function templatesBuildCommand(
  io: Io,
  input: string,
  o: {
    output: string;
    library?: string;
    template?: string;
    trunk?: boolean;
    bake?: boolean;
    bakeRate?: number;
    bakeNormals?: boolean;
    force?: boolean;
    compress?: boolean;
  },
): Promise<void> {
  checkOutputPath(o.output, ['.glb', '.gltf']);
  checkNotOverwritingInput(o.output, o.library ? [input, o.library] : [input], !!o.force);
  const start = performance.now();
  const library = o.library ? await readTemplateLibrary(o.library) : DEFAULT_TEMPLATE_LIBRARY;
  const document = await readDocument(input);
  const rigs = buildTemplateRigs(document, { library, trunk: o.trunk, choices: o.template, file: input });
  const elapsed = () => ((performance.now() - start) / 1000).toFixed(2);
  if (!o.bake)
    for (const [given, flag] of [
      [o.bakeRate !== undefined, '--bake-rate'],
      [o.bakeNormals === false, '--no-bake-normals'],
    ] as const)
      if (given) warnIgnored(io, flag, '--bake', 'without it', input);
  if (o.bake) {
    const lines: string[] = [];
    for (const { model, rig } of rigs) {
      if (!rig.limbs.length) {
        lines.push(`${model.name}: ${NO_LIMB_TO_TEMPLATE}`);
        continue;
      }
      const baked = bakeTemplateClips(document, model, createTemplateDeformer(rig), {
        rate: o.bakeRate,
        normals: o.bakeNormals,
        file: input,
      });
      lines.push(
        `${model.name}: templates baked over ${model.animations.length} clip(s) at ${o.bakeRate ?? DEFAULT_BAKE_RATE} samples/s: ${baked.targets} morph targets (${(baked.bytes / 1e6).toFixed(1)} MB), a weights channel per clip`,
      );
    }
    // A cage the input stored (an earlier build) is not for engines either.
    for (const { model } of rigs) removeCageRig(document, model);
    await writeDocument(document, o.output, { compress: o.compress, inputs: [input], force: o.force });
    for (const line of lines) io.out(line);
    io.out(`wrote ${o.output} in ${elapsed()} s`);
    return;
  }
  const lines = storeTemplateRigs(document, rigs);
  await writeDocument(document, o.output, { compress: o.compress, inputs: [input], force: o.force });
  for (const line of lines) io.out(line);
  io.out(`wrote ${o.output} in ${elapsed()} s`);
}

/** Runs `corskin templates list`: each skin's stored bones and their templates, and the library's bone templates. */
export async function templatesListCommand(io: Io, input: string): Promise<void> {
  const document = await readDocument(input);
  const models = extractSkinnedModels(document, input);
  const rigs = models.flatMap((model) => {
    const rig = readTemplateRig(document, model, input);
    return rig ? [{ model, rig }] : [];
  });
  if (!rigs.length) {
    io.out(`${input}: no skinning templates (build them with corskin templates build)`);
    io.out(
      `library (default): ${DEFAULT_TEMPLATE_LIBRARY.templates.map((t) => `${t.id} (${templateKind(t)})`).join(', ')}`,
    );
    return;
  }
  for (const { model, rig } of rigs) {
    const name = (j: number) => model.skeleton.jointNames[j];
    io.out(
      `${input}${models.length > 1 ? `, ${model.name}` : ''}: ${templateBones(rig)} template bones in ${rig.limbs.length} limbs, cage of ${rig.cage.positions.length / 3} vertices`,
    );
    for (const limb of rig.limbs) {
      io.out(`  limb ${name(limb.chain[0])} → ${name(limb.chain[limb.chain.length - 1])}:`);
      limb.chain.forEach((j, i) => {
        const bones = i > 0 ? incidentBones(rig.library.templates.find((t) => t.id === limb.jointTemplates[i])!) : 2;
        const joint =
          i > 0 ? `joint ${name(j)}${bones > 2 ? ` (${bones} incident bones)` : ''}: ${limb.jointTemplates[i]}; ` : '';
        io.out(`    ${joint}bone from ${name(j)}: ${limb.boneTemplates[i]}`);
      });
    }
    const outside = templateSkinOutside(rig, model.mesh.positions);
    if (outside.length)
      io.err(
        `corskin: warning: ${input}: ${model.name}: ${skinOutsideMessage(outside)} — move the cage out around them in the viewer or rebuild it (corskin templates build)`,
      );
  }
  io.out(
    `library (bone templates fit every bone, joint templates the joints with their number of incident bones; the cap is chosen at build): ${rigs[0].rig.library.templates
      .map((t) => `${t.id} (${templateKind(t)})${t.description ? ` — ${t.description}` : ''}`)
      .join('; ')}`,
  );
}

/** A template's kind as listed: a joint template with its incident bones. */
const templateKind = (t: TemplateDefinition) => (t.kind === 'joint' ? `joint, ${incidentBones(t)} bones` : t.kind);

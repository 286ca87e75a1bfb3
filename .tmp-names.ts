import { readDocument } from './src/io/node-io.js';
import { extractSkinnedModels } from './src/io/gltf.js';
for (const f of process.argv.slice(2)) {
  const ms = extractSkinnedModels(await readDocument(f), f);
  const s = ms[0].skeleton;
  console.log(f, ms.length, s.jointNames.map((n,j)=>`${j}:${n}<${s.parents[j]}`).join(' '));
}

#!/usr/bin/env node
// corskin's own fuzzer: mutated GLB, .gltf and libigl (OBJ + TGF + DMAT) inputs made from real
// assets, each run on a worker thread through read → extract → precompute → every deformer →
// write → re-read (scripts/fuzz-worker.mjs), with a time limit per case. A case passes when it
// succeeds or is refused with a clear CorskinError; hangs, other exceptions, non-finite
// results and written files that do not re-read are failures (exit code 1).
//
//   npm run fuzz                      10,000 cases per format (about half an hour on 2 cores)
//   npm run fuzz -- --quick           a fixed-seed slice (CI)
//   npm run fuzz -- --cases N --seed S --timeout MS --formats glb,gltf,libigl,cli
//
// The `cli` format runs the long commands as the `corskin` process with bad options, absurd clip
// lengths, repeated clip names, broken stored data and signals (scripts/fuzz-cli.mjs); its cases
// are a tenth of --cases (each starts a process).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { rng } from './rng.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHARED = join(ROOT, '..', 'shared', 'data');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const quick = args.includes('--quick');
const CASES = Number(opt('cases', quick ? 80 : 10000));
const SEED = Number(opt('seed', 1));
const TIMEOUT = Number(opt('timeout', 15000));
const FORMATS = opt('formats', 'glb,gltf,libigl,cli').split(',');
const THREADS = Math.max(1, Math.min(availableParallelism(), Number(opt('threads', 2))));

const pick = (r, list) => list[Math.floor(r() * list.length)];
const SPECIAL = [
  -1,
  0,
  1,
  2,
  3,
  4,
  7,
  99,
  65536,
  2 ** 31,
  -(2 ** 31),
  2 ** 32 + 1,
  1e308,
  -1e308,
  1.5,
  0.5,
  null,
  'x',
  '',
  [],
  {},
  true,
  [1, 2, 3, 4],
  [0, 0, 0],
  [0, 0, 0, 0],
];
const FLOATS = [NaN, Infinity, -Infinity, 1e38, -1e38, 0, -0, 1e-40, 3.4e39];

// --- JSON mutations (GLB JSON chunk and .gltf) ---------------------------------------------
function paths(json, skip) {
  const out = [];
  const walk = (v, path) => {
    if (path.length > 8) return;
    out.push(path);
    if (v && typeof v === 'object') {
      for (const k of Object.keys(v))
        if (!(skip && k === 'uri' && typeof v[k] === 'string' && v[k].length > 200)) walk(v[k], [...path, k]);
    }
  };
  walk(json, []);
  return out.filter((p) => p.length);
}
function mutateJson(r, json) {
  const all = paths(json, true);
  for (let n = 1 + Math.floor(r() * 3); n > 0; n--) {
    const path = pick(r, all);
    let parent = json;
    for (const k of path.slice(0, -1)) parent = parent?.[k];
    if (!parent || typeof parent !== 'object') continue;
    const key = path[path.length - 1];
    const op = r();
    if (op < 0.55) parent[key] = structuredClone(pick(r, SPECIAL));
    else if (op < 0.7) {
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
    } else if (op < 0.8 && Array.isArray(parent)) parent.push(structuredClone(parent[Number(key)]));
    else if (op < 0.9 && typeof parent[key] === 'number')
      parent[key] = parent[key] * pick(r, [2, 10, -1, 0.5, 1e6]) + pick(r, [0, 1, -1]);
    else if (Array.isArray(json.nodes) && json.nodes.length) {
      // Node tree edits: a cycle, a second parent, a deep chain.
      const a = Math.floor(r() * json.nodes.length);
      const b = Math.floor(r() * json.nodes.length);
      const node = json.nodes[a];
      if (node && typeof node === 'object') node.children = Array.isArray(node.children) ? [...node.children, b] : [b];
    }
  }
  return json;
}

// --- GLB --------------------------------------------------------------------------------------
function splitGlb(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLength = view.getUint32(12, true);
  return {
    json: JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength))),
    bin: bytes.subarray(20 + jsonLength),
  };
}
function joinGlb(json, bin) {
  let text = JSON.stringify(json);
  while (text.length % 4) text += ' ';
  const t = new TextEncoder().encode(text);
  const out = new Uint8Array(20 + t.length + bin.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x46546c67, true);
  v.setUint32(4, 2, true);
  v.setUint32(8, out.length, true);
  v.setUint32(12, t.length, true);
  v.setUint32(16, 0x4e4f534a, true);
  out.set(t, 20);
  out.set(bin, 20 + t.length);
  return out;
}
function flipBytes(r, bytes, n) {
  const out = Uint8Array.from(bytes);
  for (let k = 0; k < n; k++) out[Math.floor(r() * out.length)] = Math.floor(r() * 256);
  return out;
}
function mutateGlb(r, base) {
  const op = r();
  if (op < 0.45) {
    const { json, bin } = splitGlb(base);
    return joinGlb(mutateJson(r, json), bin);
  }
  if (op < 0.65) {
    // Special floats written over words of the binary chunk (accessor data).
    const { json, bin } = splitGlb(base);
    const b = Uint8Array.from(bin);
    const v = new DataView(b.buffer);
    for (let k = 1 + Math.floor(r() * 40); k > 0; k--) {
      const at = 8 + 4 * Math.floor(r() * ((b.length - 12) / 4));
      v.setFloat32(at, pick(r, FLOATS), true);
    }
    return joinGlb(json, b);
  }
  if (op < 0.85) return flipBytes(r, base, 1 + Math.floor(r() * 8));
  if (op < 0.95) return base.subarray(0, Math.floor(r() * base.length));
  const out = Uint8Array.from(base);
  new DataView(out.buffer).setUint32(pick(r, [8, 12]), Math.floor(r() * 2 ** 32), true);
  return out;
}

// --- text formats -------------------------------------------------------------------------------
const TOKENS = [
  'nan',
  'inf',
  '-inf',
  '-1',
  '0',
  '1',
  '1e39',
  '1.5',
  'x',
  '1abc',
  '0x10',
  '2147483648',
  '',
  '#',
  '\t',
  '1e308',
];
function mutateText(r, text) {
  let lines = text.split('\n');
  for (let n = 1 + Math.floor(r() * 3); n > 0; n--) {
    const op = r();
    if (!lines.length) break;
    const i = Math.floor(r() * lines.length);
    if (op < 0.4) {
      const parts = lines[i].split(/(\s+)/);
      const k = Math.floor(r() * parts.length);
      parts[k] = pick(r, TOKENS);
      lines[i] = parts.join('');
    } else if (op < 0.55) lines.splice(i, 1);
    else if (op < 0.7) lines.splice(i, 0, lines[Math.floor(r() * lines.length)]);
    else if (op < 0.8) lines[i] = lines[i].replace(/ /g, '\t');
    else if (op < 0.9) lines = lines.slice(0, i);
    else
      return new TextDecoder().decode(
        flipBytes(r, new TextEncoder().encode(lines.join('\n')), 1 + Math.floor(r() * 6)),
      );
  }
  return lines.join('\n');
}

// --- the bases ----------------------------------------------------------------------------------
function bases() {
  const glbs = [readFileSync(join(SHARED, 'gltf/CesiumMan.glb')), readFileSync(join(SHARED, 'characters/Fox.glb'))];
  // A .gltf with an embedded buffer, from the Fox GLB.
  const { json, bin } = splitGlb(glbs[1]);
  json.buffers[0].uri = `data:application/octet-stream;base64,${Buffer.from(bin.subarray(8, 8 + json.buffers[0].byteLength)).toString('base64')}`;
  delete json.images;
  delete json.textures;
  for (const m of json.materials ?? []) delete m.pbrMetallicRoughness?.baseColorTexture;
  const gltf = JSON.stringify(json);
  // libigl: a small arm-like tube from the shared arm's skeleton and weights (first 1,500 vertices).
  const obj = readFileSync(join(SHARED, 'libigl/arm.obj'), 'latin1');
  const tgf = readFileSync(join(SHARED, 'libigl/arm.tgf'), 'latin1');
  const dmat = readFileSync(join(SHARED, 'libigl/arm-weights.dmat'), 'latin1');
  return { glbs, gltf, obj, tgf, dmat };
}

function makeCase(format, r, b, dir) {
  if (format === 'glb') {
    const file = join(dir, 'in.glb');
    writeFileSync(file, mutateGlb(r, pick(r, b.glbs)));
    return { gltf: file };
  }
  if (format === 'gltf') {
    const file = join(dir, 'in.gltf');
    const op = r();
    const text =
      op < 0.7
        ? JSON.stringify(mutateJson(r, JSON.parse(b.gltf)))
        : op < 0.85
          ? b.gltf.slice(0, Math.floor(r() * b.gltf.length))
          : mutateText(r, b.gltf);
    writeFileSync(file, text);
    return { gltf: file };
  }
  const files = { obj: join(dir, 'in.obj'), tgf: join(dir, 'in.tgf'), dmat: join(dir, 'in.dmat') };
  const which = pick(r, ['obj', 'tgf', 'dmat']);
  for (const k of ['obj', 'tgf', 'dmat']) writeFileSync(files[k], k === which ? mutateText(r, b[k]) : b[k]);
  return files;
}

// --- the pool -----------------------------------------------------------------------------------
class Slot {
  constructor(i, root) {
    this.dir = join(root, `w${i}`);
    mkdirSync(this.dir, { recursive: true });
    this.spawn();
  }
  spawn() {
    this.worker = new Worker(new URL('./fuzz-worker.mjs', import.meta.url));
    this.worker.unref();
  }
  run(task) {
    return new Promise((resolve) => {
      const worker = this.worker;
      const done = (result, respawn) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        if (respawn) this.spawn();
        resolve(result);
      };
      const onMessage = (m) => done(m, false);
      const onError = (e) => done({ outcome: 'uncaught', message: String(e?.stack ?? e).slice(0, 400) }, true);
      const timer = setTimeout(() => {
        void worker.terminate();
        done({ outcome: 'hang', message: `no answer in ${TIMEOUT} ms` }, true);
      }, TIMEOUT);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage({ ...task, dir: this.dir });
    });
  }
}

const FAILURES = [
  'hang',
  'uncaught',
  'non-finite',
  'reread-failed',
  'raw-message',
  'bad-exit',
  'wrote-on-error',
  'newly-invalid',
  'left-behind',
];
const root = mkdtempSync(join(tmpdir(), 'corskin-fuzz-'));
const keep = join(ROOT, '.tmp', 'fuzz-failures');
const b = bases();
const table = [];
const refusals = new Map();
let failed = 0;
const started = performance.now();
for (const format of FORMATS) {
  if (format === 'cli') {
    table.push(await fuzzCommands());
    continue;
  }
  const counts = Object.fromEntries(['ok', 'refused', ...FAILURES].map((k) => [k, 0]));
  const slots = Array.from({ length: THREADS }, (_, i) => new Slot(i, join(root, format)));
  let next = 0;
  await Promise.all(
    slots.map(async (slot) => {
      for (let c = next++; c < CASES; c = next++) {
        const seed = SEED * 1_000_003 + c;
        const files = makeCase(format, rng(seed), b, slot.dir);
        const res = await slot.run({ format, files });
        counts[res.outcome] = (counts[res.outcome] ?? 0) + 1;
        if (res.outcome === 'refused') {
          // The message without the temporary path and numbers: a histogram of kinds of refusal.
          const kind = String(res.message)
            .split('\n')[0]
            .replace(/\/\S+?: /, '')
            .replace(/\d+/g, 'N')
            .slice(0, 90);
          refusals.set(kind, (refusals.get(kind) ?? 0) + 1);
        }
        if (FAILURES.includes(res.outcome)) {
          failed++;
          const dest = join(keep, `${format}-seed-${seed}`);
          mkdirSync(dest, { recursive: true });
          for (const f of Object.values(files)) writeFileSync(join(dest, f.split('/').pop()), readFileSync(f));
          if (failed <= 12) console.error(`${format} case ${c} (seed ${seed}): ${res.outcome}: ${res.message}`);
        }
        if (!quick && c % 500 === 0) console.error(`${format}: ${c}/${CASES}…`);
      }
    }),
  );
  await Promise.all(slots.map((s) => s.worker.terminate()));
  table.push([format, CASES, ...['ok', 'refused', ...FAILURES].map((k) => counts[k])]);
}
rmSync(root, { recursive: true, force: true });

/** The command scenarios (scripts/fuzz-cli.mjs), THREADS processes at a time. */
async function fuzzCommands() {
  const { cliBases, cliCase, runCliCase } = await import('./fuzz-cli.mjs');
  const cases = Math.max(quick ? 24 : 1, Math.floor(CASES / 10));
  const base = join(root, 'cli-bases');
  mkdirSync(base, { recursive: true });
  const b = await cliBases(ROOT, SHARED, base);
  const counts = Object.fromEntries(['ok', 'refused', 'interrupted', ...FAILURES].map((k) => [k, 0]));
  let next = 0;
  await Promise.all(
    Array.from({ length: THREADS }, async (_, slot) => {
      const dir = join(root, `cli-${slot}`);
      mkdirSync(dir, { recursive: true });
      for (let c = next++; c < cases; c = next++) {
        const seed = SEED * 1_000_003 + c;
        const res = await runCliCase(ROOT, cliCase(rng(seed), b, dir), Math.max(TIMEOUT, 60_000));
        counts[res.outcome] = (counts[res.outcome] ?? 0) + 1;
        if (res.outcome === 'refused') {
          const kind = String(res.message)
            .replace(/\/\S+?: /g, '')
            .replace(/\d+/g, 'N')
            .slice(0, 90);
          refusals.set(kind, (refusals.get(kind) ?? 0) + 1);
        }
        if (FAILURES.includes(res.outcome)) {
          failed++;
          if (failed <= 12) console.error(`cli case ${c} (seed ${seed}): ${res.outcome}: ${res.message}`);
        }
        if (!quick && c % 50 === 0) console.error(`cli: ${c}/${cases}…`);
      }
    }),
  );
  console.error(`cli: ${counts.interrupted} of ${cases} runs interrupted by a signal`);
  return ['cli', cases, counts.ok + counts.interrupted, counts.refused, ...FAILURES.map((k) => counts[k])];
}
const head = ['format', 'cases', 'ok', 'refused', ...FAILURES];
const widths = head.map((h, i) => Math.max(h.length, ...table.map((row) => String(row[i]).length)));
const line = (row) => row.map((c, i) => String(c).padStart(widths[i])).join('  ');
console.log(line(head));
for (const row of table) console.log(line(row));
console.log(
  `seed ${SEED}, ${THREADS} threads, ${((performance.now() - started) / 1000).toFixed(0)} s${failed ? `; failing inputs in ${keep}` : ''}`,
);
if (args.includes('--messages')) {
  console.log('\nmost frequent refusals:');
  for (const [m, n] of [...refusals].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(String(n).padStart(6), m);
}
console.log(`${table.reduce((s, r) => s + r[2] + r[3], 0)} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;

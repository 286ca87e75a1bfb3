// The fuzzer's command scenarios (`npm run fuzz -- --formats cli`): the long commands — bake
// (helpers, morphs), precompute (cor, ddm), templates build --bake, evaluate, deform of stored
// method data — run as the `corskin` process with random option values (huge, tiny, negative,
// NaN, empty, not a number), on files whose clips are absurdly long or short, whose clip names
// repeat, or whose stored Direct Delta Mush data is zero, NaN or huge; a third of the runs get
// SIGINT or SIGTERM at a random time. A case passes when the process exits 0 with a finite file
// that reads back and has no Khronos validator error its input lacks, or refuses with one clear `corskin: error:` line (no stack, no raw
// undefined/NaN/false) and writes nothing, or, signalled, exits 130/143 within 2 s leaving no
// output, no temporary file and its input unchanged.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { validateBytes } from 'gltf-validator';

const VALUES = ['1e6', '1e-9', '-1', '0', 'NaN', '', 'abc', '1e308', '3e38', '2', '0.5', '17', '1e9'];

/** The inputs the scenarios start from, made once into `dir`. */
export async function cliBases(ROOT, SHARED, dir) {
  const io = new NodeIO();
  const fox = join(SHARED, 'characters/Fox.glb');
  const edit = async (name, from, change) => {
    const doc = await io.read(from);
    change(doc);
    const path = join(dir, name);
    await io.write(path, doc);
    return path;
  };
  const clipEnd = (end) => (doc) => {
    const s = doc.getRoot().listAnimations()[0].listSamplers()[0];
    const times = Float32Array.from(s.getInput().getArray());
    times[times.length - 1] = end;
    s.setInput(s.getInput().clone().setArray(times));
  };
  const ddm = join(dir, 'fox-ddm.glb');
  await run(ROOT, ['precompute', '--method', 'ddm', fox, '-o', ddm, '--force'], 60_000);
  const ddmWith = (value) => (doc) => {
    for (const p of doc
      .getRoot()
      .listMeshes()
      .flatMap((m) => m.listPrimitives())) {
      for (const s of p.listSemantics().filter((x) => x.startsWith('_DDM_OMEGA'))) {
        const a = p.getAttribute(s);
        a.setArray(Float32Array.from(a.getArray(), (x, k) => (value === 'zero' ? 0 : k % 7 ? x : value)));
      }
    }
  };
  return {
    fox,
    long: await edit('long.glb', fox, clipEnd(1e6)),
    short: await edit('short.glb', fox, clipEnd(1e-7)),
    twice: await edit('twice.glb', fox, (doc) => {
      const [a] = doc.getRoot().listAnimations();
      const b = doc.createAnimation(a.getName());
      for (const ch of a.listChannels()) {
        const s = ch.getSampler();
        const copy = doc.createAnimationSampler().setInput(s.getInput()).setOutput(s.getOutput());
        b.addSampler(copy).addChannel(
          doc
            .createAnimationChannel()
            .setTargetNode(ch.getTargetNode())
            .setTargetPath(ch.getTargetPath())
            .setSampler(copy),
        );
      }
    }),
    ddmZero: await edit('ddm-zero.glb', ddm, ddmWith('zero')),
    ddmNaN: await edit('ddm-nan.glb', ddm, ddmWith(NaN)),
    ddmHuge: await edit('ddm-huge.glb', ddm, ddmWith(3e38)),
  };
}

/** One random scenario: the command line and the input it must leave alone. */
export function cliCase(r, b, dir) {
  const pick = (list) => list[Math.floor(r() * list.length)];
  const input = pick([b.fox, b.fox, b.long, b.short, b.twice]);
  const out = join(dir, 'out.glb');
  const value = () => pick(VALUES);
  const scenarios = [
    () => [
      'bake',
      input,
      '--method',
      pick(['dqs', 'cor', 'ddm']),
      '--as',
      'helpers',
      '--helpers',
      value(),
      '--rate',
      value(),
    ],
    () => ['bake', input, '--method', pick(['dqs', 'templates']), '--as', 'morphs', '--rate', value()],
    () => ['precompute', input, '--sigma', value(), '--epsilon', value()],
    () => [
      'precompute',
      '--method',
      'ddm',
      input,
      pick(['--iterations', '--lambda', '--kappa', '--alpha', '--threshold']),
      value(),
    ],
    () => ['templates', 'build', input, '--bake', '--bake-rate', value()],
    () => ['evaluate', '--character', input, '--methods', pick(['lbs', 'ddm', 'cor,dqs', 'nope'])],
    () => ['deform', pick([b.ddmZero, b.ddmNaN, b.ddmHuge]), '--method', 'ddm', '--time', value()],
    () => ['deform', input, '--method', pick(['cor', 'templates', 'dqs']), '--time', value()],
  ];
  const args = pick(scenarios)();
  const watched = args.find((a) => typeof a === 'string' && a.endsWith('.glb')) ?? input;
  if (args[0] !== 'evaluate') args.push('-o', out, '--force');
  const signal = r() < 1 / 3 ? { name: pick(['SIGINT', 'SIGTERM']), after: 200 + Math.floor(r() * 2800) } : undefined;
  return { args, out, watched, signal };
}

/** Runs `corskin ARGS`; resolves { code, stderr, ms } (signal: sent after `after` ms). */
function run(ROOT, args, timeout, signal) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/corskin.js'), ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    let sentAt;
    let sentWall;
    const timers = [
      setTimeout(() => child.kill('SIGKILL'), timeout),
      signal &&
        setTimeout(() => {
          sentAt = performance.now();
          sentWall = Date.now();
          child.kill(signal.name);
        }, signal.after),
    ];
    // 'close', not 'exit': at 'exit' the child's stderr may still hold unread lines.
    child.on('close', (code, killedBy) => {
      for (const t of timers) if (t) clearTimeout(t);
      resolve({
        code,
        killedBy,
        stderr,
        sentWall,
        stopMs: sentAt === undefined ? undefined : performance.now() - sentAt,
      });
    });
  });
}

/**
 * Runs one case; returns { outcome: ok | refused | interrupted | hang | raw-message | bad-exit |
 * wrote-on-error | non-finite | newly-invalid | left-behind, message }.
 */
export async function runCliCase(ROOT, c, timeout) {
  rmSync(c.out, { force: true });
  const before = readFileSync(c.watched);
  const r = await run(ROOT, c.args, timeout, c.signal);
  const line = `${c.args.join(' ')}${c.signal ? ` (${c.signal.name} at ${c.signal.after} ms)` : ''}`;
  const dir = join(c.out, '..');
  if (readdirSync(dir).some((f) => f.endsWith('.tmp')))
    return { outcome: 'left-behind', message: `${line}: temporary file` };
  if (!readFileSync(c.watched).equals(before)) return { outcome: 'left-behind', message: `${line}: input changed` };
  if (r.killedBy === 'SIGKILL') return { outcome: 'hang', message: `${line}: no exit in ${timeout} ms` };
  // A signal that came after the command had finished (exit 0) or had written its output (the
  // file's time before the signal's) changes nothing; otherwise 130/143, within 2 s, no output.
  const finishedFirst = r.code === 0 || (existsSync(c.out) && statSync(c.out).mtimeMs <= r.sentWall);
  if (c.signal && r.stopMs !== undefined && !finishedFirst) {
    // Death by the signal itself (before start-up or while exiting) is 128 + n to the shell too.
    const code = r.killedBy === c.signal.name ? (c.signal.name === 'SIGINT' ? 130 : 143) : r.code;
    if (code !== (c.signal.name === 'SIGINT' ? 130 : 143) || r.stopMs > 2000)
      return { outcome: 'bad-exit', message: `${line}: exit ${r.code} ${r.stopMs.toFixed(0)} ms after the signal` };
    if (existsSync(c.out)) return { outcome: 'left-behind', message: `${line}: output written after the signal` };
    return { outcome: 'interrupted' };
  }
  if (c.signal && finishedFirst && r.code !== 0) return { outcome: 'ok' }; // finished, then told
  // A raw value is one the user did not type: unquoted undefined, NaN or false.
  if (/internal error| at \S+\.(m?js|ts):\d+|\bundefined\b|(?<!['"])\b(NaN|false)\b(?!['"])/.test(r.stderr))
    return {
      outcome: 'raw-message',
      message: `${line}: ${r.stderr.split('\n').find((l) => l.includes('error')) ?? r.stderr.slice(0, 200)}`,
    };
  if (r.code !== 0) {
    if (![1, 2].includes(r.code) || !/^corskin: error: /m.test(r.stderr))
      return { outcome: 'bad-exit', message: `${line}: exit ${r.code}: ${r.stderr.slice(0, 200)}` };
    if (existsSync(c.out)) return { outcome: 'wrote-on-error', message: line };
    return { outcome: 'refused', message: r.stderr.split('\n').find((l) => l.startsWith('corskin: error')) };
  }
  if (existsSync(c.out)) {
    // No validator error that the input lacked.
    const errors = async (path) =>
      new Set(
        (await validateBytes(new Uint8Array(readFileSync(path)))).issues.messages
          .filter((m) => m.severity === 0)
          .map((m) => m.code),
      );
    const before = await errors(c.watched);
    const added = [...(await errors(c.out))].filter((code) => !before.has(code));
    if (added.length) return { outcome: 'newly-invalid', message: `${line}: ${added.join(', ')}` };
    const doc = await new NodeIO().read(c.out).catch((e) => e);
    if (doc instanceof Error)
      return { outcome: 'non-finite', message: `${line}: output does not read: ${doc.message}` };
    for (const a of doc.getRoot().listAccessors()) {
      const array = a.getArray();
      if (array && array.some((x) => !Number.isFinite(x)))
        return { outcome: 'non-finite', message: `${line}: non-finite output` };
    }
  }
  return { outcome: 'ok' };
}

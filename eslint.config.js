import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Modules of the Node layer (`corskin/node` and the CLI); every other src/ module is browser-safe. */
const NODE_ONLY = [
  'src/cli/**',
  'src/node.ts',
  'src/io/node-io.ts',
  'src/io/files.ts',
  'src/io/libigl.ts',
  'src/io/bake.ts',
  'src/io/posed-geometry.ts',
  'src/io/read-cage.ts',
  'src/io/twist-joints.ts',
  'src/io/helper-bake-parallel.ts',
  'src/io/validate.ts',
  'src/io/validate-worker.ts',
  'src/io/measure-parallel.ts',
  'src/io/measure-worker.ts',
  'src/bake/fit-worker.ts',
  'src/cor/parallel.ts',
  'src/cor/worker.ts',
  'src/methods/ddm/parallel.ts',
  'src/methods/ddm/worker.ts',
  'src/methods/*/node.ts',
  'src/methods/*/commands.ts',
  'src/methods/*/cli.ts',
  'src/cage/parallel.ts',
  'src/core/node-worker.ts',
  'src/cage/worker.ts',
  'src/wasm/parallel-simd.ts',
  'src/wasm/simd-worker.ts',
  'src/wasm/kernels-shared-binary.ts',
  'src/evaluation/report.ts',
];

const CORE_PATTERNS = [
  { group: ['node:*'], message: 'Node built-ins belong in corskin/node modules (see eslint.config.js).' },
  {
    group: ['commander', 'cli-progress', 'playwright-core', 'chart.js', '@gltf-transform/functions'],
    message: 'Optional dependencies (CLI, report, document functions) stay in the Node layer.',
  },
];
const GLTF_PATTERN = {
  group: ['@gltf-transform/*'],
  message:
    "glTF-Transform belongs in src/io (corskin/gltf, corskin/node) and a method's storage.ts and transform.ts: the corskin entry has no dependencies at run time (type imports are allowed).",
};
const THREE_PATTERN = {
  group: ['three', 'three/*'],
  message: "three.js belongs in src/three (corskin/three) and a method's three*.ts (its GPU kernel).",
};

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'corskin-demo/',
      'coverage/',
      '.tmp/',
      'scratch/',
      'viewer-dist/',
      'docs/api/',
      'asm/',
      'src/wasm/kernels-binary.ts',
      'src/wasm/kernels-shared-binary.ts',
      'src/cor/web-worker-source.ts',
      'src/cage/web-worker-source.ts',
      'src/methods/templates/web-worker-source.ts',
      'src/methods/ddm/web-worker-source.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }] },
  },
  {
    // The browser-safe core (the `corskin` entry): no Node built-ins, no CLI or report libraries;
    // no three.js outside corskin/three and corskin/evaluation (the metrics that draw on it).
    files: ['src/**/*.ts'],
    ignores: NODE_ONLY,
    rules: { 'no-restricted-imports': ['error', { patterns: CORE_PATTERNS }] },
  },
  {
    files: ['src/**/*.ts'],
    ignores: [
      ...NODE_ONLY,
      'src/three/**',
      'src/methods/*/three*.ts',
      'src/metrics/surface.ts',
      'src/evaluation/**',
      'src/evaluation.ts',
    ],
    rules: { 'no-restricted-imports': ['error', { patterns: [...CORE_PATTERNS, THREE_PATTERN] }] },
  },
  {
    // The dependency-free `corskin` entry: no glTF-Transform outside src/io and the methods' glTF
    // storage (src/methods/<id>/storage.ts and transform.ts) but its types (a method module's
    // `read` takes a document), which vanish at run time.
    files: ['src/**/*.ts'],
    ignores: [
      ...NODE_ONLY,
      'src/io/**',
      'src/methods/*/storage.ts',
      'src/methods/*/transform.ts',
      'src/methods/*/three*.ts',
      'src/gltf.ts',
      'src/three/**',
      'src/metrics/surface.ts',
      'src/evaluation/**',
      'src/evaluation.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ ...GLTF_PATTERN, allowTypeImports: true }] },
      ],
    },
  },
  {
    files: ['scripts/**/*.mjs'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'URL',
          'structuredClone',
          'TextDecoder',
          'TextEncoder',
          'Buffer',
          'setTimeout',
          'clearTimeout',
          'performance',
        ].map((g) => [g, 'readonly']),
      ),
    },
  },
  {
    files: ['test/browser/**/*.mjs', 'viewer/**/*.{js,ts}'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', performance: 'readonly' } },
  },
);

import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
      'asm/',
      'src/wasm/kernels-binary.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }] },
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

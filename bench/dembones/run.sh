#!/usr/bin/env bash
# Dem Bones vs corskin's helper-joint bake (issue 29). See README.md.
#   DEMBONES=/path/to/dem-bones bash bench/dembones/run.sh [file.glb] [workdir]
set -euo pipefail
: "${DEMBONES:?set DEMBONES to a checkout of https://github.com/electronicarts/dem-bones}"
EIGEN=${EIGEN:-/usr/include/eigen3}
FILE=${1:-../shared/data/gltf/CesiumMan.glb}
DIR=${2:-/tmp/dembones-data}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR"
# One thread: no -fopenmp (Dem Bones' pragmas are ignored, Eigen does not thread without OpenMP).
g++ -std=c++17 -O3 -DNDEBUG -I"$DEMBONES/include" -I"$EIGEN" "$HERE/driver.cpp" -o "$DIR/driver"
npx tsx "$HERE/export.ts" export "$FILE" "$DIR"
for mode in free locked locked-w; do
  OMP_NUM_THREADS=1 "$DIR/driver" "$DIR" "$mode" "$DIR/recon-$mode.f32" 2>"$DIR/log-$mode.txt"
done
npx tsx "$HERE/export.ts" measure "$DIR" "$DIR/recon-free.f32" "$DIR/recon-locked.f32" "$DIR/recon-locked-w.f32"

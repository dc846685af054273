#!/usr/bin/env bash
# Seeds the corpora (fixtures/ and, when present, ../shared/samples; both stay out of
# git) and fuzzes every target on the stable toolchain (`-s none`: no sanitizer, so no
# nightly needed). New crashes land in fuzz/artifacts/<target>/; minimize them with
# `cargo fuzz tmin -s none` and commit them under fuzz/regressions/<target>/, where
# `cargo test -p fuzz-checks` replays them.
#
#   bash fuzz/run.sh SECONDS [TARGET...]   fuzz each target for SECONDS seconds
#   bash fuzz/run.sh smoke [TARGET...]     CI: a fixed seed and a fixed number of runs
#                                          per target (about 10-20 s each), so the same
#                                          commit always gives the same verdict
#
# `convert` is the cross-format target (any reader -> every writer -> read back), seeded
# with every family's corpus; `convert:FAMILY` (e.g. convert:m3d) runs it from one
# family's seeds in its own corpus folder, to give each family its share of time.
# Builds keep debug assertions and overflow checks on (fuzz/Cargo.toml, `-a`).
# One input may take FUZZ_TIMEOUT seconds (25 by default): the instrumented build
# converts the largest seed (lantea.m3d, 75,000 meshed voxel vertices, to every format)
# in about 3.5 s on an idle 2-core machine and took 9 s under load, past the old 10 s.
set -euo pipefail
cd "$(dirname "$0")"
mode="${1:-20}"
shift || true
if [ "$mode" = smoke ]; then
  limits=(-seed=1 -runs=60000)
else
  limits=(-max_total_time="$mode")
fi
targets=("$@")
families=(unigine_mesh unigine_anim vitaboy unity_meshser m3d m3d_ascii gltf obj)
[ ${#targets[@]} -eq 0 ] && targets=("${families[@]}" convert meshopt)
samples="${MESHFMT_SAMPLES:-../../shared/samples}"
seed() { # target, fixture dir, sample dir, extensions...
  local t=$1 fx=$2 sm=$3; shift 3
  mkdir -p "corpus/$t"
  for ext in "$@"; do
    find "../fixtures/$fx" "$samples/$sm" -type f -name "*.$ext" 2>/dev/null \
      -exec cp -n {} "corpus/$t/" \; || true
  done
}
seed unigine_mesh unigine-mesh unigine mesh smesh
seed unigine_anim unigine-anim unigine anim sanim
seed vitaboy niotso-mesh niotso mesh skel anim
seed unity_meshser unity-meshser none bytes data
seed m3d m3d m3d m3d a3d
seed m3d_ascii m3d m3d a3d
# OBJ seeds: a hand-written quad with a material library.
mkdir -p corpus/obj
printf 'mtllib m.mtl\nnewmtl red\nKd 1 0 0\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 1\nvn 0 0 1\no q\nusemtl red\nf 1/1/1 2/2/1 3/2/1 -1/1/1\n' > corpus/obj/quad.obj
# glTF seeds: the exports that cargo xtask gltf writes, when present.
mkdir -p corpus/gltf
find ../.ci/out/fixtures -type f \( -name '*.glb' -o -name '*.embedded.gltf' \) -size -64k \
  -exec cp -n {} corpus/gltf/ \; 2>/dev/null || true
# meshopt seeds: a mode/filter/stride/count prefix, then a vertex stream header and data.
mkdir -p corpus/meshopt
printf '\000\000\007\002\240\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' > corpus/meshopt/zeros
printf '\001\000\001\001\341\000\000\000' > corpus/meshopt/triangles
# The cross-format target starts from every family's seeds.
mkdir -p corpus/convert
for f in "${families[@]}"; do
  find "corpus/$f" -type f -size -64k -exec cp -n {} corpus/convert/ \; 2>/dev/null || true
done
cargo fuzz build -s none -O -a
for t in "${targets[@]}"; do
  bin="${t%%:*}"
  dir="corpus/$t"
  if [ "$bin" != "$t" ]; then
    # convert:FAMILY: the cross-format target from that family's seeds only.
    dir="corpus/convert-${t#*:}"
    mkdir -p "$dir"
    find "corpus/${t#*:}" -type f -exec cp -n {} "$dir/" \; 2>/dev/null || true
  fi
  echo "==> fuzz $t (${limits[*]})"
  mkdir -p "artifacts/$t"
  log="$(mktemp)"
  cargo fuzz run -s none -O -a "$bin" "$dir" -- \
    "${limits[@]}" -max_len=262144 -rss_limit_mb=2048 -timeout="${FUZZ_TIMEOUT:-25}" \
    -artifact_prefix="artifacts/$t/" -print_final_stats=1 >"$log" 2>&1 || true
  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|==|SUMMARY|.*(panicked|ERROR|crash|timeout|leak))' "$log" || true
  if ls "artifacts/$t"/* >/dev/null 2>&1; then
    echo "fuzz: $t found crashes in fuzz/artifacts/$t"; exit 1
  fi
  # A run that never started (a build error, a bad flag) prints no final stats: that is
  # a failure too, not a quiet pass.
  if ! grep -q '^stat::number_of_executed_units' "$log"; then
    echo "fuzz: $t did not run:"; tail -20 "$log"; exit 1
  fi
  rm -f "$log"
done

#!/usr/bin/env bash
# The paged decode kernel on an NVIDIA GPU host (configs/paged_decode.json,
# kernels/cuda/paged_decode.cu): its sweep on the decode shapes in pages of 16
# keys, the contiguous decode kernels (configs/flash_attn_decode.json: decode
# decode_cpasync, the fastest at every decode anchor shape) swept on the same lengths, their K+V bandwidth side by
# side (goal: paged >= 0.9x the contiguous best), and the paged kernel's
# determinism matrix.
#
#   scripts/gpu/paged_decode.sh OUT_DIR [STEP...]
#
# Steps (each one attn-tune command, each inside 10 minutes on an H100/H200):
#   paged-sweep-n4096  paged-sweep-n32768   the paged kernel, every configuration
#   contiguous-n4096   contiguous-n32768    decode_cpasync, every configuration
#   compare                                 compare.md / compare.json from the four leaderboards
#   paged-matrix                            the determinism matrix of the default preset
# Under OUT_DIR: STEP.json (leaderboard or report), STEP.log, STEP.cmd, STEP.rc,
# host.txt, compare.md and compare.json.
#
# Environment: ATTN_TUNE (default build-gpu/app/attn-tune, built by
# scripts/gpu/setup.sh when missing), CUDA_DEVICE (cuda:0), SEED (1).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:?usage: scripts/gpu/paged_decode.sh OUT_DIR [STEP...]}"
shift
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$root"

ATTN_TUNE="${ATTN_TUNE:-$root/build-gpu/app/attn-tune}"
if [ ! -x "$ATTN_TUNE" ]; then
  # shellcheck source=scripts/gpu/setup.sh
  source "$root/scripts/gpu/setup.sh" || exit 1
fi
cuda="${CUDA_DEVICE:-cuda:0}"
seed="${SEED:-1}"

{
  echo "commit $(cat .attn-tune-commit 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null)"
  "$ATTN_TUNE" --version
  nvidia-smi -L 2>/dev/null
  date -u +%Y-%m-%dT%H:%M:%SZ
} > "$out/host.txt"

failures=0
run_step() {
  local name=$1 expected=$2
  shift 2
  printf '%q ' "$@" > "$out/$name.cmd"
  echo >> "$out/$name.cmd"
  local start=$SECONDS
  "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "$rc" > "$out/$name.rc"
  local verdict=ok
  [ "$rc" = "$expected" ] || { verdict="UNEXPECTED (wanted $expected)"; failures=$((failures + 1)); }
  echo "$name: exit $rc, $((SECONDS - start)) s: $verdict"
}

# Paged shape -> the contiguous spec's shape of the same lengths.
paged_4096="fp16-h32-kv32-n4096-p16,fp16-h32-kv8-n4096-p16"
paged_32768="fp16-h32-kv32-n32768-p16,fp16-h32-kv8-n32768-p16,bf16-h32-kv8-n32768-p16"
contiguous_4096="fp16-h32-kv32-n4096,fp16-h32-kv8-n4096"
contiguous_32768="fp16-h32-kv32-n32768,fp16-h32-kv8-n32768,bf16-h32-kv8-n32768"

sweep() {  # NAME SPEC KERNEL SHAPES [ARGS...]
  local name=$1 spec=$2 kernel=$3 shapes=$4
  shift 4
  run_step "$name" 0 "$ATTN_TUNE" sweep "$spec" -k "$kernel" --shape "$shapes" --device "$cuda" --seed "$seed" \
    --watchdog 900 --max-time 0.5 --overwrite --out "$out/$name.json" "$@"
}
step_paged-sweep-n4096() { sweep paged-sweep-n4096 configs/paged_decode.json paged_decode "$paged_4096"; }
step_paged-sweep-n32768() { sweep paged-sweep-n32768 configs/paged_decode.json paged_decode "$paged_32768"; }
# The contiguous kernel's fastest family; compare.md takes its deterministic mode (SPLIT_MODE 0), as the paged kernel is.
step_contiguous-n4096() { sweep contiguous-n4096 configs/flash_attn_decode.json decode_cpasync "$contiguous_4096"; }
step_contiguous-n32768() { sweep contiguous-n32768 configs/flash_attn_decode.json decode_cpasync "$contiguous_32768"; }
step_compare() {
  python3 "$root/scripts/gpu/paged_compare.py" "$out" > "$out/compare.log" 2>&1
  local rc=$?
  echo "compare: exit $rc"
  cat "$out/compare.md" 2>/dev/null
  [ "$rc" = 0 ] || failures=$((failures + 1))
}
# D 128 and 256 (16-byte rows per lane need D / ROW_THREADS to be a multiple of 8), KV 256..4096, GQA 1, 2, 4.
step_paged-matrix() {
  run_step paged-matrix 0 "$ATTN_TUNE" determinism configs/paged_decode.json -k paged_decode --preset default \
    --head-dims 128,256 --shape "fp16-h32-kv8-n4096-p16,Hq=4,Hkv=4,num_pages=0" --device "$cuda" --seed "$seed" \
    --out "$out/paged-matrix.json"
}

all_steps=(paged-sweep-n4096 contiguous-n4096 paged-sweep-n32768 contiguous-n32768 compare paged-matrix)
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=("${all_steps[@]}")
for s in "${steps[@]}"; do
  if ! declare -F "step_$s" >/dev/null; then
    echo "unknown step '$s' (steps: ${all_steps[*]})"
    exit 2
  fi
  "step_$s"
done
echo "outputs in $out; $failures unexpected result(s)"
[ "$failures" -eq 0 ]

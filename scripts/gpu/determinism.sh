#!/usr/bin/env bash
# Determinism on an NVIDIA GPU host (docs/determinism.md): the determinism matrix
# of the deterministic CUDA decode and prefill configurations, the catch of
# the atomic-combine and batch-dependent split modes, and the decode sweeps at
# KV = 32768 with `--check determinism` (the cost of determinism).
#
#   scripts/gpu/determinism.sh OUT_DIR [STEP...]
#
# With no STEP, every step in the order below: the issue's acceptance runs
# first, then decode-catch-heuristic and opencl-decode-split (extras). Each
# step is one attn-tune command that should finish inside 10 minutes on an
# H100/H200, so steps can be run one per call. Estimates (most of the time is
# drawing the random inputs of B = 1, 2, 8 and 33 on one host core, ~30 ns per
# element): decode-matrix 4 min, decode-matrix-cudacore 4, prefill-matrix 4,
# prefill-matrix-d256 5, decode-catch-atomic 1-2, each decode sweep 4-5,
# decode-catch-heuristic 1, opencl-decode-split 3. A step writes, under OUT_DIR:
#   STEP.json  the determinism report or the leaderboard (the sweeps also leave STEP.json.journal.jsonl)
#   STEP.log   what the command printed (the table)
#   STEP.cmd   the exact command        STEP.rc  its exit code
# Expected exit codes: 0 for the matrices and sweeps; 1 for the two catch
# steps, which must find the failure they are named after (the script checks).
#
# Environment: ATTN_TUNE (default build-gpu/app/attn-tune, built by
# scripts/gpu/setup.sh when missing), CUDA_DEVICE (cuda:0), OPENCL_GPU (the
# first OpenCL GPU `attn-tune devices` lists), SEED (1).

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
out_arg="${1:?usage: scripts/gpu/determinism.sh OUT_DIR [STEP...]}"
shift
gpu_output_dir "$out_arg"
gpu_attn_tune || exit 1
cuda="${CUDA_DEVICE:-cuda:0}"
seed="${SEED:-1}"

{
  gpu_host_info
  "$ATTN_TUNE" devices 2>&1
} > "$out/host.txt"

# The matrix varies D, KV, GQA and the features of a base shape; Hq = 4 keeps
# the host-side input generation of 44 sequences per point affordable.
decode_base="fp16-h32-kv8-n4096,Hq=4,Hkv=4"
prefill_base="fp16-d128-n1024-causal,Hq=4,Hkv=4,Nq=256"

step_decode-matrix() {  # deterministic tensor-core decode (SPLIT_MODE 0): D 64 and 128 (DEC_MMA needs D <= 128)
  run_step decode-matrix 0 "$ATTN_TUNE" determinism configs/flash_attn_decode.json -k decode --preset deterministic \
    --shape "$decode_base" --device "$cuda" --seed "$seed" --out "$out/decode-matrix.json"
}
step_decode-matrix-cudacore() {  # deterministic CUDA-core decode: D 128 and 256 at GQA 1 (its constraints)
  run_step decode-matrix-cudacore 0 "$ATTN_TUNE" determinism configs/flash_attn_decode.json -k decode --preset cudacore \
    --head-dims 128,256 --gqa 1 --shape "$decode_base" --device "$cuda" --seed "$seed" \
    --out "$out/decode-matrix-cudacore.json"
}
step_prefill-wgmma-matrix() {  # the wgmma prefill kernel's most frequent winner: D 64 and 128 (its constraints)
  run_step prefill-wgmma-matrix 0 "$ATTN_TUNE" determinism configs/flash_attn_fwd_wgmma.json -k prefill_wgmma \
    --set BLOCK_M=64,BLOCK_N=64,STAGES=3,QK_RS=2,OVERLAP=1 --head-dims 64,128 --shape "$prefill_base" --device "$cuda" \
    --seed "$seed" --out "$out/prefill-wgmma-matrix.json"
}
# decode_cpasync is the fastest decode kernel at every anchor shape
# (results/h200/compare/attention_peers.md). Its deterministic preset on the
# matrix, and its fastest configurations at KV = 32768 checked on the anchor
# shapes themselves: when the fastest configuration passes, the cost of
# determinism there is 1.000x.
step_decode-cpasync-matrix() {
  run_step decode-cpasync-matrix 0 "$ATTN_TUNE" determinism configs/flash_attn_decode.json -k decode_cpasync \
    --preset deterministic --shape "$decode_base" --device "$cuda" --seed "$seed" --out "$out/decode-cpasync-matrix.json"
}
step_decode-cpasync-best-kv8() {
  run_step decode-cpasync-best-kv8 0 "$ATTN_TUNE" determinism configs/flash_attn_decode.json -k decode_cpasync \
    --set NUM_SPLITS=8,DEC_THREADS=128,DEC_STAGES=3,DEC_UNROLL=1,SPLIT_MODE=0 --head-dims 128 --kv 32768 --gqa 4 \
    --features none --shape fp16-h32-kv8-n32768 --device "$cuda" --seed "$seed" --out "$out/decode-cpasync-best-kv8.json"
}
step_decode-cpasync-best-kv32() {  # Hkv = 32: B = 2 and 8 (B = 33 is 17.7 GB of K/V drawn on the host)
  run_step decode-cpasync-best-kv32 0 "$ATTN_TUNE" determinism configs/flash_attn_decode.json -k decode_cpasync \
    --set NUM_SPLITS=8,DEC_THREADS=64,DEC_STAGES=2,DEC_UNROLL=2,SPLIT_MODE=0 --head-dims 128 --kv 32768 --gqa 1 \
    --features none --batch-sizes 1,2,8 --shape fp16-h32-kv32-n32768 --device "$cuda" --seed "$seed" \
    --out "$out/decode-cpasync-best-kv32.json"
}
step_decode-catch-atomic() {  # SPLIT_MODE 2: must fail cross-run (32 heads, 20 runs: the fp32 order shows after fp16 rounding)
  run_step decode-catch-atomic 1 "$ATTN_TUNE" determinism configs/flash_attn_decode.json -k decode --preset atomic \
    --head-dims 128 --kv 4096 --gqa 1,4 --features none --runs 20 --shape fp16-h32-kv32-n4096 --device "$cuda" \
    --seed "$seed" --out "$out/decode-catch-atomic.json"
  grep -q '"deterministic": false' "$out/decode-catch-atomic.json" ||
    { echo "decode-catch-atomic: the atomic combine was NOT caught"; failures=$((failures + 1)); }
}
step_decode-catch-heuristic() {  # SPLIT_MODE 1: must fail batch invariance
  run_step decode-catch-heuristic 1 "$ATTN_TUNE" determinism configs/flash_attn_decode.json -k decode --preset heuristic \
    --head-dims 128 --kv 4096 --gqa 1 --features none --shape fp16-h32-kv32-n4096 --device "$cuda" --seed "$seed" \
    --out "$out/decode-catch-heuristic.json"
  grep -q '"batch_invariant": false' "$out/decode-catch-heuristic.json" ||
    { echo "decode-catch-heuristic: the batch-dependent split was NOT caught"; failures=$((failures + 1)); }
}
step_prefill-matrix() {  # FA2 preset: D 64 and 128
  run_step prefill-matrix 0 "$ATTN_TUNE" determinism configs/flash_attn_fwd.json -k prefill --preset FA2 \
    --head-dims 64,128 --shape "$prefill_base" --device "$cuda" --seed "$seed" --out "$out/prefill-matrix.json"
}
step_prefill-matrix-d256() {  # D = 256 needs the DV split (the spec's register bound)
  run_step prefill-matrix-d256 0 "$ATTN_TUNE" determinism configs/flash_attn_fwd.json -k prefill --preset M64 \
    --set DV_SPLIT=2 --head-dims 256 --shape "$prefill_base" --device "$cuda" --seed "$seed" \
    --out "$out/prefill-matrix-d256.json"
}
# The decode sweeps at KV = 32768: every configuration marked, the cost of
# determinism per shape. The first configuration of a shape also draws the
# inputs of B = 1, 2, 8, 33 (minutes at 32k keys), hence the watchdog.
sweep_32k() {
  local name=$1 shape=$2
  shift 2
  run_step "$name" 0 "$ATTN_TUNE" sweep configs/flash_attn_decode.json -k decode --shape "$shape" --check determinism \
    --device "$cuda" --seed "$seed" --watchdog 900 --max-time 0.5 --overwrite --out "$out/$name.json" "$@"
}
step_decode-sweep-fp16-kv8() { sweep_32k decode-sweep-fp16-kv8 fp16-h32-kv8-n32768; }
step_decode-sweep-bf16-kv8() { sweep_32k decode-sweep-bf16-kv8 bf16-h32-kv8-n32768; }
# Hkv = 32: B = 33 alone is 17.7 GB of K/V drawn on the host; B = 2 and 8 keep the step inside 10 minutes.
step_decode-sweep-fp16-kv32() { sweep_32k decode-sweep-fp16-kv32 fp16-h32-kv32-n32768 --check-batch-sizes 2,8; }
step_opencl-decode-split() {  # the OpenCL decode modes on NVIDIA's OpenCL: mode 1 flagged, mode 0 passing
  local dev="${OPENCL_GPU:-$(first_opencl_gpu)}"
  if [ -z "$dev" ]; then
    echo "opencl-decode-split: no OpenCL GPU listed (scripts/gpu/setup.sh registers NVIDIA's); skipped"
    return
  fi
  run_step opencl-decode-split 0 "$ATTN_TUNE" sweep configs/flash_attn_f32_f16.json -k decode_split --check determinism \
    --device "$dev" --seed "$seed" --watchdog 600 --max-time 0.5 --overwrite --out "$out/opencl-decode-split.json"
}

all_steps=(decode-matrix decode-matrix-cudacore prefill-matrix prefill-matrix-d256 decode-catch-atomic
           prefill-wgmma-matrix decode-cpasync-matrix decode-cpasync-best-kv8 decode-cpasync-best-kv32
           decode-sweep-fp16-kv8 decode-sweep-bf16-kv8 decode-sweep-fp16-kv32 decode-catch-heuristic opencl-decode-split)
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

#!/usr/bin/env bash
# The paged decode kernels on an NVIDIA GPU host (configs/paged_decode.json,
# kernels/cuda/paged_decode.cu): the tensor-core kernel (paged_decode_mma) and
# the CUDA-core one (paged_decode) swept on the decode lengths in pages of 16
# keys, the contiguous decode kernel (configs/paged_decode_contiguous.json:
# decode_cpasync, deterministic mode, the block shapes that win its sweeps) on
# the same lengths, their K+V bandwidth compared by re-timing both winners
# interleaved (goal: paged >= 0.9x the contiguous), and the determinism matrix
# of the paged tensor-core winner.
#
#   scripts/gpu/paged_decode.sh OUT_DIR [quick | full | STEP...]
#
# quick (about 7.5 minutes on an H200, the build included; results/h200/paged_decode/tensor-core/ took
#   487 s with cudacore-n4096's 33 s, which quick no longer runs: the CUDA-core kernel lost there): small,
#   paged-sweep-n4096, paged-sweep-n32768 (GQA 4 and 8), contiguous-n4096, contiguous-n32768, compare,
#   paged-matrix (features all on / all off)
# full (the default): the same steps on every length (N = 32768 without GQA and bf16 too),
#   the CUDA-core kernel on every N = 4096 length and the complete determinism matrix
# Steps (each one attn-tune command, each inside 10 minutes on an H100/H200; named steps run alone):
#   small               configs/paged_decode_small.json's paged_decode_mma (full: and paged_decode), every
#                       configuration verified: a wrong answer (or any result not ok) stops the script
#   paged-sweep-n4096   paged-sweep-n32768   paged_decode_mma, every configuration
#   cudacore-n4096                           paged_decode (CUDA cores), every configuration
#   contiguous-n4096    contiguous-n32768    decode_cpasync, deterministic mode
#   compare             compare.md / compare.json: both winners of each length re-timed, interleaved,
#                       3 rounds (scripts/gpu/paged_compare.py)
#   paged-matrix        the determinism matrix of paged_decode_mma's winner at GQA 4 (n4096)
# Under OUT_DIR: STEP.json (leaderboard or report), STEP.log, STEP.cmd, STEP.rc,
# host.txt, compare.md and compare.json; with more than 8 files, all but
# compare.md and summary.txt are packed into paged_decode.tar.gz.
#
# Environment: ATTN_TUNE (default build-gpu/app/attn-tune, built by
# scripts/gpu/setup.sh when missing), CUDA_DEVICE (cuda:0), SEED (1).

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
out_arg="${1:?usage: scripts/gpu/paged_decode.sh OUT_DIR [STEP...]}"
shift
gpu_output_dir "$out_arg"
gpu_attn_tune || exit 1
cuda="${CUDA_DEVICE:-cuda:0}"
seed="${SEED:-1}"

{
  gpu_host_info
  date -u +%Y-%m-%dT%H:%M:%SZ
} > "$out/host.txt"

mode=full
case "${1:-}" in
  quick | full) mode=$1; shift ;;
esac

# The paged spec's shapes and the contiguous spec's of the same lengths (GQA 1, 4, 8).
paged_4096="fp16-h32-kv32-n4096-p16,fp16-h32-kv8-n4096-p16,fp16-h32-kv4-n4096-p16"
contiguous_4096="fp16-h32-kv32-n4096,fp16-h32-kv8-n4096,fp16-h32-kv4-n4096"
if [ "$mode" = quick ]; then
  paged_32768="fp16-h32-kv8-n32768-p16,fp16-h32-kv4-n32768-p16"
  contiguous_32768="fp16-h32-kv8-n32768,fp16-h32-kv4-n32768"
  timing=(--max-time 0.3 --warmup-time 0.25)
  matrix=(--features all)
  small_kernels=(-k paged_decode_mma)
  cudacore_4096="fp16-h32-kv32-n4096-p16"
else
  paged_32768="fp16-h32-kv32-n32768-p16,fp16-h32-kv8-n32768-p16,fp16-h32-kv4-n32768-p16,bf16-h32-kv8-n32768-p16"
  contiguous_32768="fp16-h32-kv32-n32768,fp16-h32-kv8-n32768,fp16-h32-kv4-n32768,bf16-h32-kv8-n32768"
  timing=(--max-time 0.5)
  matrix=()
  small_kernels=(-k paged_decode_mma -k paged_decode)
  cudacore_4096=$paged_4096
fi

sweep() {  # NAME SPEC KERNEL SHAPES [ARGS...]
  local name=$1 spec=$2 kernel=$3 shapes=$4
  shift 4
  run_step "$name" 0 "$ATTN_TUNE" sweep "$spec" -k "$kernel" --shape "$shapes" --device "$cuda" --seed "$seed" \
    --watchdog 900 "${timing[@]}" --overwrite --out "$out/$name.json" "$@"
}
# Every result of a leaderboard ok and verified, else the script stops: a wrong answer comes before speed.
# `skipped` (a kernel's constraint excludes the shape, e.g. the fp16/bf16 kernels on f32 shapes) is no result.
all_ok() {  # LEADERBOARD
  python3 - "$root/scripts/lib" "$1" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import leaderboards
entries = leaderboards.entries(leaderboards.load(sys.argv[2]))
ran = [(g, e) for g, e in entries if e.get("status") != "skipped"]
bad = [(g["kernel"], g["shape"], e["key"], e.get("status"), e.get("reason", "")) for g, e in ran
       if e.get("status") != "ok" or not e.get("verify", {}).get("passed")]
for b in bad:
    print("NOT OK: %s / %s / %s: %s %s" % b)
print("%d results (%d skipped by constraints), %d not ok" % (len(ran), len(entries) - len(ran), len(bad)))
sys.exit(1 if bad or not ran else 0)
PY
}
step_small() {
  run_step small 0 "$ATTN_TUNE" sweep configs/paged_decode_small.json "${small_kernels[@]}" --device "$cuda" \
    --seed "$seed" --watchdog 900 --max-time 0.05 --warmup-time 0 --tie-rounds 0 --overwrite --out "$out/small.json"
  if ! all_ok "$out/small.json" | tee "$out/small.check"; then
    echo "small: a configuration is not ok (above): stopping before any timing"
    finish 1
  fi
}
step_paged-sweep-n4096() { sweep paged-sweep-n4096 configs/paged_decode.json paged_decode_mma "$paged_4096"; }
step_paged-sweep-n32768() { sweep paged-sweep-n32768 configs/paged_decode.json paged_decode_mma "$paged_32768"; }
# The CUDA-core kernel's board is named paged-sweep-* too, so that compare takes it when it wins
# (a step of its own: `paged_decode.sh OUT quick cudacore-n4096` runs it without GQA only).
step_cudacore-n4096() { sweep paged-sweep-cudacore-n4096 configs/paged_decode.json paged_decode "$cudacore_4096"; }
step_contiguous-n4096() { sweep contiguous-n4096 configs/paged_decode_contiguous.json decode_cpasync "$contiguous_4096"; }
step_contiguous-n32768() { sweep contiguous-n32768 configs/paged_decode_contiguous.json decode_cpasync "$contiguous_32768"; }
step_compare() {
  python3 "$root/scripts/gpu/paged_compare.py" "$out" --attn-tune "$ATTN_TUNE" --device "$cuda" --seed "$seed" \
    --rounds 3 --max-time 0.3 --warmup-time 0.2 > "$out/compare.log" 2>&1
  local rc=$?
  echo "compare: exit $rc"
  [ "$rc" = 0 ] || failures=$((failures + 1))
}
# The winner (rank 1) of paged_decode_mma at GQA 4 (N = 4096), on D 128 and 256, KV 256..4096, GQA 1, 4, 8, 16.
step_paged-matrix() {
  local key
  key=$(python3 "$root/scripts/lib/leaderboards.py" winners "$out/paged-sweep-n4096.json" --kernel paged_decode_mma \
    --shape fp16-h32-kv8-n4096-p16 --key-only 2>/dev/null)
  [ -n "$key" ] || key="SPLIT_KEYS=512,THREADS=128,STAGES=3,UNROLL=1"
  run_step paged-matrix 0 "$ATTN_TUNE" determinism configs/paged_decode.json -k paged_decode_mma --set "$key" \
    --head-dims 128,256 --gqa 1,4,8,16 "${matrix[@]}" --shape "fp16-h32-kv8-n4096-p16,Hq=16,Hkv=16,num_pages=0" \
    --device "$cuda" --seed "$seed" --out "$out/paged-matrix.json"
}

# Pack the outputs when there are many (compare.md and summary.txt stay outside), then exit.
finish() {
  {
    echo "mode $mode; $failures unexpected result(s)"
    cat "$out/small.check" 2>/dev/null
    cat "$out/compare.md" 2>/dev/null
    tail -n 1 "$out/paged-matrix.log" 2>/dev/null
  } > "$out/summary.txt"
  local n
  n=$(find "$out" -maxdepth 1 -type f | wc -l)
  if [ "$n" -gt 8 ]; then
    (cd "$out" && find . -maxdepth 1 -type f ! -name compare.md ! -name summary.txt ! -name paged_decode.tar.gz ! -name .packed -printf '%P\n' |
      sort > .packed && tar czf paged_decode.tar.gz -T .packed && xargs rm -f < .packed && rm -f .packed)
  fi
  cat "$out/summary.txt"
  echo "outputs in $out"
  exit "$1"
}

quick_steps=(small paged-sweep-n4096 paged-sweep-n32768 contiguous-n4096 contiguous-n32768 compare paged-matrix)
all_steps=(small paged-sweep-n4096 cudacore-n4096 contiguous-n4096 paged-sweep-n32768 contiguous-n32768 compare paged-matrix)
steps=("$@")
if [ ${#steps[@]} -eq 0 ]; then
  if [ "$mode" = quick ]; then steps=("${quick_steps[@]}"); else steps=("${all_steps[@]}"); fi
fi
for s in "${steps[@]}"; do
  if ! declare -F "step_$s" >/dev/null; then
    echo "unknown step '$s' (steps: ${all_steps[*]})"
    exit 2
  fi
  "step_$s"
done
[ "$failures" -eq 0 ]
finish $?

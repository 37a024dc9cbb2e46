#!/usr/bin/env bash
# Nsight Compute on a leaderboard's winner and cuDNN's SDPA kernel, side by side: the same shape, the
# same tensors, one process (scripts/compare/attention_peers.py with one repetition of two samples, run
# under ncu). Each attention kernel is profiled a few times (its correctness call and its samples), with
# the sections that explain a gap: the busiest pipe's share of the elapsed cycles (SpeedOfLight,
# ComputeWorkloadAnalysis), instructions per cycle and cycles per issued instruction (WarpStateStats),
# occupancy and the launch (registers, shared memory, grid).
#
#   OUT=DIR bash scripts/gpu/ncu_peers.sh LEADERBOARD SHAPE [SHAPE ...]   ->  $OUT/ncu_peers/SHAPE.log
#
# and SHAPE.md, the kernels side by side (scripts/bench/ncu_compare.py: cycles, the busiest pipe, IPC,
# instructions, each against the first kernel's). NCU_STALLS=1 adds why the warps wait: each stall
# reason's warps per issued instruction (ncu's smsp__average_warps_issue_stalled_*_per_issue_active).
#
# The kernels are picked by name: attn-tune's entry point (flash_attn_fwd*) and cuDNN's (its names hold
# "sdpa" or "fmha"); the L2 flushes and the float64 reference of the harness are not profiled.

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
board="${1:?usage: ncu_peers.sh LEADERBOARD SHAPE [SHAPE ...]}"
shift
[ $# -ge 1 ] || { echo "usage: ncu_peers.sh LEADERBOARD SHAPE [SHAPE ...]"; exit 2; }
[ -f "$board" ] || { echo "ncu_peers: no leaderboard at '$board'"; exit 2; }
board="$(cd "$(dirname "$board")" && pwd)/$(basename "$board")"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_begin ncu_peers
gpu_ncu
gpu_host_info > "$out/host.txt"
stalls=()
[ "${NCU_STALLS:-0}" = 1 ] && stalls=(--metrics 'regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$')
for shape in "$@"; do
  run_step "$shape" 0 ncu --target-processes all -k 'regex:flash_attn_fwd|sdpa|fmha' -c 8 "${NCU_SECTIONS[@]}" "${stalls[@]}" \
    python3 scripts/compare/attention_peers.py --leaderboard "$board" --shape "$shape" --peers cudnn \
    --reps 1 --samples 2 --warmup 0 --warmup-time 0 --attn-tune "$ATTN_TUNE" --out "$out/peers-$shape"
  python3 scripts/bench/ncu_compare.py "$out/$shape.log" > "$out/$shape.md" || failures=$((failures + 1))
done
echo "failures: $failures"
[ "$failures" = 0 ]

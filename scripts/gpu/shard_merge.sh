#!/usr/bin/env bash
# Shards on one GPU: a prefill sweep run whole, then as --shard 0/2 and
# --shard 1/2 one after the other, the shards merged with --retime-top, and
# the winners compared (README "Tuning on several GPUs and on a cluster").
#
#   scripts/gpu/shard_merge.sh [OUT_DIR]      (default: $OUT)
#
# Writes under OUT_DIR: whole.json, lb.shard-0-of-2.json, lb.shard-1-of-2.json
# (each with its journal), merged.json (with each group's "retimed" top
# RETIME), STEP.log / STEP.cmd / STEP.rc per step, and winners.md: per group
# the unsharded winner, the merged winner and the retimed winner, "same" or a
# declared tie (the winners' retimed medians within TIE_PERCENT), and the
# winner of the committed results/h200 leaderboard of the spec when there is one.
# Shards count from 0: --shard 0/2 and --shard 1/2 are the two halves.
# About 5 minutes on an H100/H200 with the default shapes.
#
# Environment: ATTN_TUNE (default build-gpu/app/attn-tune, built by
# scripts/gpu/setup.sh when missing), CUDA_DEVICE (cuda:0), SPEC
# (configs/flash_attn_fwd.json), SHAPES (fp16-d64-n4096,fp16-d128-n4096-causal),
# RETIME (3), TIE_PERCENT (2), MAX_TIME (0.3, as the committed sweeps).

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_output_dir "${1:-${OUT:?usage: scripts/gpu/shard_merge.sh OUT_DIR (or set OUT)}}"
gpu_attn_tune || exit 1
device="${CUDA_DEVICE:-cuda:0}"
spec="${SPEC:-configs/flash_attn_fwd.json}"
shapes="${SHAPES:-fp16-d64-n4096,fp16-d128-n4096-causal}"
retime="${RETIME:-3}"
tie="${TIE_PERCENT:-2}"
max_time="${MAX_TIME:-0.3}"

gpu_host_info > "$out/host.txt"

common=("$spec" --device "$device" --shape "$shapes" --max-time "$max_time" -q --overwrite)
run_step whole 0 "$ATTN_TUNE" sweep "${common[@]}" --out "$out/whole.json"
run_step shard0 0 "$ATTN_TUNE" sweep "${common[@]}" --out "$out/lb.json" --shard 0/2
run_step shard1 0 "$ATTN_TUNE" sweep "${common[@]}" --out "$out/lb.json" --shard 1/2
run_step merge 0 "$ATTN_TUNE" merge "$out/lb.shard-0-of-2.json" "$out/lb.shard-1-of-2.json" --out "$out/merged.json" \
  --retime-top "$retime" --device "$device"

committed="results/h200/$(basename "$spec")"
python3 "$root/scripts/gpu/shard_winners.py" "$out/whole.json" "$out/merged.json" "$committed" "$tie" > "$out/winners.md"
rc=$?
cat "$out/winners.md"
[ "$rc" -eq 0 ] || failures=$((failures + 1))
echo "shard_merge: $failures failure(s); files in $out"
exit $((failures > 0))

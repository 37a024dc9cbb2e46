#!/usr/bin/env bash
# Correctness of every configuration of the two wgmma prefill kernels on small edge shapes (odd
# lengths, GQA, mask + ALiBi + sinks, window, causal chunk, D = 80 / 96 / 112 / 256): what a change
# to their shared headers (attn_score_mods.cuh, wgmma_output.cuh) must pass on a Hopper GPU.
#
#   OUT=DIR bash scripts/gpu/verify_prefill_wgmma.sh
#
# Exit 1 when any configuration is not ok or skipped (the statuses are in DIR/verify/*.status).

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_begin verify
gpu_host_info > "$out/host.txt"
quick=(--device cuda:0 --max-time 0.02 --min-samples 1 --warmup 0 --warmup-time 0 --watchdog 15 --overwrite -q)
edges="fp16-d128-gqa4-mask-alibi-sinks,fp16-d128-gqa4-window-causal,bf16-d64-gqa8-causal-chunk,fp16-d80-n4096-causal"
edges+=",bf16-d96-n4096,fp16-d112-n4096-causal,fp16-d256-n4096-causal,B=1,Nq=190,Nkv=333"
run_step ws_small 0 "$ATTN_TUNE" sweep configs/flash_attn_fwd_ws_small.json "${quick[@]}" --out "$out/ws_small.json"
run_step wgmma_edges 0 "$ATTN_TUNE" sweep configs/flash_attn_fwd_wgmma.json -s "$edges" "${quick[@]}" --out "$out/wgmma_edges.json"
for f in ws_small wgmma_edges; do
  python3 "$root/scripts/lib/leaderboards.py" statuses "$out/$f.json" > "$out/$f.status" || failures=$((failures + 1))
  echo "$f: $(head -1 "$out/$f.status")"
done
echo "failures: $failures"
[ "$failures" -eq 0 ]

#!/usr/bin/env bash
# Nsight Compute on configurations of the warp-specialized prefill kernel (flash_attn_fwd_ws.cu), one
# shape: one launch each (the bench's single sample), with the sections that give the tensor pipe's
# share (SpeedOfLight, ComputeWorkloadAnalysis), the stall reasons (WarpStateStats), occupancy and
# the memory traffic (MemoryWorkloadAnalysis, L2 hit rate included).
#
#   OUT=DIR bash scripts/gpu/ncu_prefill_ws.sh SHAPE NAME=CONFIG [NAME=CONFIG ...]
#       # e.g. fp16-d128-n1024 persistent=WS_CONSUMERS=2,...,PERSISTENT=1  ->  $OUT/ncu/NAME.log
#
# PC_SAMPLING=1 adds two more launches per configuration: the stall reasons counted by PC sampling
# (NAME.stalls.log) and the SASS with each instruction's samples and shared-memory wavefronts
# (NAME.sass.log); scripts/bench/ncu_stalls.py compares them. The folder is then packed into
# $OUT/ncu.tar.gz (the SASS listings are megabytes each, and many files do not come back from a lent machine).

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
shape="${1:?usage: ncu_prefill_ws.sh SHAPE NAME=CONFIG ...}"
shift
[ $# -ge 1 ] || { echo "usage: ncu_prefill_ws.sh SHAPE NAME=CONFIG ..."; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_begin ncu
gpu_ncu
gpu_host_info > "$out/host.txt"
for item in "$@"; do
  name="${item%%=*}"
  config="${item#*=}"
  run_step "$name" 0 ncu --target-processes all -k regex:flash_attn_fwd_ws -c 1 "${NCU_SECTIONS[@]}" \
    --section MemoryWorkloadAnalysis "$ATTN_TUNE" bench configs/flash_attn_fwd_ws.json -k prefill_ws --set "$config" --shape "$shape" --device cuda:0 \
    --min-samples 1 --max-samples 1
  if [ "${PC_SAMPLING:-0}" = 1 ]; then
    bench=("$ATTN_TUNE" bench configs/flash_attn_fwd_ws.json -k prefill_ws --set "$config" --shape "$shape"
      --device cuda:0 --min-samples 1 --max-samples 1)
    run_step "$name.stalls" 0 ncu --target-processes all -k regex:flash_attn_fwd_ws -c 1 --section SpeedOfLight \
      --section WarpStateStats --metrics 'regex:smsp__pcsamp_warps_issue_stalled_[a-z_]+$' "${bench[@]}"
    run_step "$name.sass" 0 ncu --target-processes all -k regex:flash_attn_fwd_ws -c 1 --section SourceCounters \
      --page source --print-source sass "${bench[@]}"
  fi
done
echo "failures: $failures"
if [ "${PC_SAMPLING:-0}" = 1 ]; then
  rm -f "$out/setup.log"
  tar czf "$out/../ncu.tar.gz" -C "$out/.." "$(basename "$out")" && rm -rf "$out"
fi

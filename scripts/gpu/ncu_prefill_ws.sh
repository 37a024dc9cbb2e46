#!/usr/bin/env bash
# Nsight Compute on configurations of the warp-specialized prefill kernel (flash_attn_fwd_ws.cu), one
# shape: one launch each (the bench's single sample), with the sections that give the tensor pipe's
# share (SpeedOfLight, ComputeWorkloadAnalysis), the stall reasons (WarpStateStats), occupancy and
# the memory traffic (MemoryWorkloadAnalysis, L2 hit rate included).
#
#   OUT=DIR bash scripts/gpu/ncu_prefill_ws.sh SHAPE NAME=CONFIG [NAME=CONFIG ...]
#       # e.g. fp16-d128-n1024 persistent=WS_CONSUMERS=2,...,PERSISTENT=1  ->  $OUT/ncu/NAME.log
set -uo pipefail
shape="${1:?usage: ncu_prefill_ws.sh SHAPE NAME=CONFIG ...}"
shift
[ $# -ge 1 ] || { echo "usage: ncu_prefill_ws.sh SHAPE NAME=CONFIG ..."; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_output_dir "${OUT:?set OUT to the output folder}/ncu"
gpu_attn_tune > "$out/setup.log" 2>&1 || { tail -30 "$out/setup.log"; exit 1; }
export PATH="$PATH:/usr/local/cuda/bin"
command -v ncu > /dev/null || { echo "ncu: not installed"; exit 1; }
gpu_host_info > "$out/host.txt"
for item in "$@"; do
  name="${item%%=*}"
  config="${item#*=}"
  run_step "$name" 0 ncu --target-processes all -k regex:flash_attn_fwd_ws -c 1 --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis \
    "$ATTN_TUNE" bench configs/flash_attn_fwd_ws.json -k prefill_ws --set "$config" --shape "$shape" --device cuda:0 \
    --min-samples 1 --max-samples 1
done
echo "failures: $failures"

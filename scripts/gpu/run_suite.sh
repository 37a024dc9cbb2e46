#!/usr/bin/env bash
# attn-tune's GPU runs, as committed under results/: run from the repository
# root on an NVIDIA machine after `source scripts/gpu/setup.sh`.
#
#   scripts/gpu/run_suite.sh OUT STEP...
#
# Each step writes its leaderboards and a log under OUT/ and never stops the
# others. Steps:
#   devices       attn-tune devices, nvidia-smi
#   isolation     the CUDA testbed: a hang (timeout), an illegal address and a
#                 trap (crashed), a spilling configuration, the sweep going on
#   opencl        the OpenCL flash attention kernel (f32 Q/O, f16 K/V) on NVIDIA's OpenCL driver
#   pocl          the same spec on the host's CPU through PoCL
#   cuda-f32f16   its CUDA port (same spec shapes)
#   decode        the CUDA split-KV decode kernel
#   prefill       the CUDA tensor-core prefill kernel
#   prefill-wgmma the sm_90a wgmma prefill kernel (anchor and sliding-window shapes)
#   peers-wgmma   both prefill leaderboards of OUT against PyTorch SDPA and
#                 flex_attention (needs python3 with torch and cupy)
#   peers         the committed H200 prefill (mma.sync and wgmma) and decode
#                 leaderboards' winners against PyTorch SDPA, attn-tune's own
#                 build launched by the comparison script, interleaved 3 times
#                 (needs python3 with torch and cupy)
#   repeat        the prefill anchor shapes swept twice (timing stability)

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
out=${1:?usage: run_suite.sh OUT STEP...}
shift
mkdir -p "$out"
bin=${ATTN_TUNE:-build-gpu/app/attn-tune}
now() { date -u +%Y-%m-%dT%H:%M:%SZ; }

# The NVIDIA OpenCL device's id, from `attn-tune devices --json`.
nvidia_opencl_id() {
  "$bin" devices --json | python3 -c '
import json, sys
for d in json.load(sys.stdin)["devices"]:
    if d["backend"] == "opencl" and "NVIDIA" in d["platform"]:
        print(d["id"]); break'
}

run() {  # run NAME COMMAND...: log the command and its output, keep going on failure
  local name=$1; shift
  echo "== $name: $* ($(now))" | tee -a "$out/commands.txt"
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  echo "   exit $rc ($(now))" | tee -a "$out/commands.txt"
  tail -n 40 "$out/$name.log"
}

for step in "$@"; do
  case $step in
    devices)
      run devices "$bin" devices
      nvidia-smi >"$out/nvidia-smi.txt" 2>&1 ;;
    isolation)
      run isolation "$bin" sweep tests/data/cuda_testbed.json --device cuda:0 --watchdog 10 \
        --max-time 0.2 --out "$out/cuda_testbed.json" --overwrite ;;
    opencl)
      id=$(nvidia_opencl_id)
      if [ -z "$id" ]; then echo "no NVIDIA OpenCL device" | tee "$out/opencl.log"; continue; fi
      run opencl "$bin" sweep configs/flash_attn_f32_f16.json --device "$id" --max-time 0.3 \
        --out "$out/flash_attn_f32_f16.nvidia-opencl.json" --overwrite ;;
    pocl)
      run pocl "$bin" sweep configs/flash_attn_f32_f16.json --device opencl:0:0 --max-time 0.3 \
        --out "$out/flash_attn_f32_f16.pocl.json" --overwrite ;;
    cuda-f32f16)
      run cuda-f32f16 "$bin" sweep configs/flash_attn_f32_f16_cuda.json --device cuda:0 --max-time 0.3 \
        --out "$out/flash_attn_f32_f16_cuda.json" --overwrite ;;
    decode)
      run decode "$bin" sweep configs/flash_attn_decode.json --device cuda:0 --max-time 0.3 \
        --out "$out/flash_attn_decode.json" --overwrite ;;
    prefill)
      run prefill "$bin" sweep configs/flash_attn_fwd.json --device cuda:0 --max-time 0.3 \
        --out "$out/flash_attn_fwd.json" --overwrite ;;
    prefill-wgmma)
      run prefill-wgmma "$bin" sweep configs/flash_attn_fwd_wgmma.json --device cuda:0 --max-time 0.3 \
        --out "$out/flash_attn_fwd_wgmma.json" --overwrite ;;
    peers-wgmma)
      run peers-wgmma python3 scripts/compare/attention_peers.py --attn-tune "$bin" --leaderboard "${PREFILL_LB:-$out/flash_attn_fwd.json}" \
        --leaderboard "$out/flash_attn_fwd_wgmma.json" --shape 'fp16-d*-n*,bf16-d*-n*' --out "$out/attention_peers"
      run flex-wgmma python3 scripts/compare/window_linear_torch.py "$out/window_linear_torch" --only sliding \
        --leaderboards "$out/flash_attn_fwd_wgmma.json" ;;
    peers)
      run peers python3 scripts/compare/attention_peers.py --attn-tune "$bin" \
        --leaderboard results/h200/flash_attn_fwd.json --leaderboard results/h200/flash_attn_fwd_wgmma.json \
        --leaderboard results/h200/flash_attn_decode.json --shape 'fp16-d*-n*,bf16-d*-n*,*-h32-kv*-n*' --reps 3 \
        --out "$out/attention_peers" ;;
    repeat)
      for i in 1 2; do
        run "repeat$i" "$bin" sweep configs/flash_attn_fwd.json --device cuda:0 --max-time 0.5 \
          --shape fp16-d128-n4096,fp16-d128-n4096-causal,fp16-d64-n4096 \
          --out "$out/flash_attn_fwd.repeat$i.json" --overwrite
      done ;;
    *) echo "unknown step $step" ;;
  esac
done

#!/usr/bin/env bash
# Kernels as they are (docs/your-own-kernel.md), on an NVIDIA GPU host: the examples of
# tests/data/kernels_as_they_are/ swept on the GPU, and the CUDA backend's tests with the GPU present.
#
#   OUT=DIR bash scripts/gpu/kernels_as_they_are.sh
#
# Steps (each one command; its output in STEP.log, the command in STEP.cmd, the exit code in STEP.rc):
#   cuda-tests       attn_tune_cuda_tests, every test (built in build-gpu-tests/): the GPU tests
#                    (CudaDeviceGpu.*: per-launch argument lists, dynamic shared memory, occupancy, launch
#                    errors) run rather than skip, beside the NVRTC and nvcc compile tests
#   host-launcher    host_launcher.json on cuda:0: a .cu with a host main, compiled by nvcc to a cubin
#   optional-inputs  optional_inputs.json on NVIDIA's OpenCL: mask and sinks passed as NULL where the shape
#                    turns them off, verified with and without
#   split-pipeline   split_pipeline.json on NVIDIA's OpenCL: three launches, three signatures
#   state-buffers    state_buffers.json on NVIDIA's OpenCL: running max and sum reset before every run
#   decode-small     configs/flash_attn_decode_small.json on cuda:0, every configuration verified (split and
#                    merge launches), correctness only (short sampling)
# Writes DIR/kernels_as_they_are/: STEP.json leaderboards, the logs, host.txt and summary.txt (each
# leaderboard's status counts), every other file packed into kernels_as_they_are.tgz. Environment: ATTN_TUNE (default build-gpu/app/attn-tune, built when missing).

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_begin kernels_as_they_are
gpu_host_info > "$out/host.txt"
data=tests/data/kernels_as_they_are
quick=(--max-time 0.05 --min-samples 3 --watchdog 15 --overwrite --no-cache -q)  # measured here, not replayed

tests_build="$root/build-gpu-tests"
# setup.sh again, for a build with the tests: it also unpacks .devdeps, which an existing build-gpu skipped
run_step build-cuda-tests 0 env ATTN_TUNE_BUILD_DIR="$tests_build" ATTN_TUNE_BUILD_TESTS=ON bash scripts/gpu/setup.sh
# in a session of its own: its death tests and Ctrl-C tests signal their process group
run_step cuda-tests 0 setsid -w "$tests_build/tests/cuda/attn_tune_cuda_tests"

run_step host-launcher 0 "$ATTN_TUNE" sweep "$data/host_launcher.json" --device cuda:0 "${quick[@]}" \
  --out "$out/host-launcher.json"
opencl=$(first_opencl_gpu)
if [ -n "$opencl" ]; then
  for example in optional_inputs split_pipeline state_buffers; do
    run_step "${example//_/-}" 0 "$ATTN_TUNE" sweep "$data/$example.json" --device "$opencl" "${quick[@]}" \
      --out "$out/${example//_/-}.json"
  done
else
  echo "no OpenCL GPU listed (is NVIDIA's OpenCL ICD registered? see setup.log): OpenCL examples not run" |
    tee "$out/opencl-missing.txt"
  failures=$((failures + 1))
fi
run_step decode-small 0 "$ATTN_TUNE" sweep configs/flash_attn_decode_small.json --device cuda:0 --max-time 0.02 \
  --min-samples 1 --warmup 0 --warmup-time 0 --watchdog 15 --overwrite --no-cache -q --out "$out/decode-small.json"

python3 - "$root/scripts/lib" "$out" << 'EOF' | tee "$out/summary.txt"
import glob, os, sys
sys.path.insert(0, sys.argv[1])
import leaderboards
for path in sorted(glob.glob(os.path.join(sys.argv[2], "*.json"))):
    d = leaderboards.load(path)
    print(f"{os.path.basename(path)}: {dict(leaderboards.status_counts(d))}")
EOF
echo "failures: $failures" | tee -a "$out/summary.txt"
# Few files come back from a GPU machine: everything but the summary and host.txt in one archive.
(cd "$out" && find . -maxdepth 1 -type f ! -name summary.txt ! -name host.txt ! -name '*.tgz' -printf '%P\n' |
  tar -czf kernels_as_they_are.tgz -T - --remove-files)
[ "$failures" = 0 ]

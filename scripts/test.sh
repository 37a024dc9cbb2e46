#!/usr/bin/env bash
# Builds attn-tune with warnings as errors and runs the whole test suite (ctest).
# Needs no GPU: OpenCL kernels run on PoCL, CUDA kernels are compiled with NVRTC.
#
#   bash scripts/test.sh [CTEST OPTION...]     # e.g. -L unit

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
cmake --preset ci
cmake --build --preset ci -j "$jobs"
# --progress prints each test as it finishes, so CI logs keep moving; failed tests show their output.
ctest --preset ci -j "$jobs" --progress --output-on-failure "$@"

#!/usr/bin/env bash
# From a fresh machine to a leaderboard: installs what is missing, builds
# attn-tune, lists the devices and sweeps the OpenCL flash attention kernel
# (combinations A-H and more) on the best device present. On a machine whose
# best device is the CPU (PoCL) it sweeps the small shapes, which take minutes.
# The leaderboard goes to runs/ (ignored by git; results/ holds committed ones).
#
#   bash scripts/quickstart.sh [OPTION...]     # options go to attn-tune sweep

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# Only what the sweep needs (the attn-tune target), in the build folder the test command (scripts/test.sh)
# continues from: the tests are built there, not here.
cmake --preset ci
cmake --build --preset ci -j "$(nproc)" --target attn-tune
bin=build-ci/app/attn-tune
"$bin" devices
spec=configs/flash_attn_f32_f16.json
if "$bin" devices | grep -q '\[gpu\]'; then
  echo "quickstart: sweeping $spec on the best GPU"
else
  spec=configs/flash_attn_f32_f16_small.json
  echo "quickstart: no GPU found; sweeping $spec on the CPU through PoCL"
fi
"$bin" sweep "$spec" --overwrite "$@"

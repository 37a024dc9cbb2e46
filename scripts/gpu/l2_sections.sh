#!/usr/bin/env bash
# PERSISTENT's item order in L2 sections (flash_attn_fwd_ws.cu, L2_SECTION_KB) on an H100 / H200:
#   1. verify  every PERSISTENT 1 configuration of configs/flash_attn_fwd_ws_small.json on its edge
#              shapes, at L2_SECTION_KB 1024: the many-items shapes then take several sections,
#              the last one short; a wrong answer stops here
#   2. pairs   scripts/gpu/ws_knob_pairs.sh L2_SECTION_KB 16384 0 on the D = 64 and D = 128 winner
#              families, PERSISTENT 0 and 1: with PERSISTENT 0 the knob changes nothing, so those
#              pairs show the noise of the pairing itself
#
#   OUT=DIR bash scripts/gpu/l2_sections.sh [--verify-only]   # $OUT/l2_sections/verify*, $OUT/l2_section_kb/pairs.md

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
verify_only=0
case "${1:-}" in --verify-only) verify_only=1 ;; "") ;; *) echo "usage: l2_sections.sh [--verify-only]"; exit 2 ;; esac
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
top="${OUT:?set OUT to the output folder}"
gpu_begin l2_sections
export ATTN_TUNE
# a kernel's params replace the parent's whole: the small spec's, PERSISTENT at 1, sections of 1 MB
python3 - "$root" "$out" <<'PY' || exit 2
import json, sys
root, out = sys.argv[1:]
params = json.load(open(f"{root}/configs/flash_attn_fwd_ws_small.json"))["kernels"]["prefill_ws"]["params"]
params["PERSISTENT"] = [1]
params["L2_SECTION_KB"] = [1024]
json.dump({"attn_tune_spec": 1, "extends": f"{root}/configs/flash_attn_fwd_ws_small.json", "name": "ws_small_persistent",
           "kernels": {"prefill_ws": {"params": params}}}, open(f"{out}/verify_spec.json", "w"), indent=1)
PY
verify_spec "$out/verify_spec.json" || { echo "verification failed: nothing timed"; exit 1; }
[ "$verify_only" = 1 ] && exit 0
FAMILY_D64='{"WS_CONSUMERS": [3], "OVERLAP": [0], "PINGPONG": [0], "STAGES": [2, 3], "PERSISTENT": [0, 1]}' \
FAMILY_D128='{"WS_CONSUMERS": [2], "OVERLAP": [1], "PINGPONG": [0, 1], "STAGES": [2], "PERSISTENT": [0, 1]}' \
  OUT="$top" bash "$root/scripts/gpu/ws_knob_pairs.sh" L2_SECTION_KB 16384 0

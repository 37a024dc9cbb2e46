#!/usr/bin/env bash
# SOFTMAX_CHAINS 4 against 1 (results/h200/hopper_ws/softmax_chains/): scripts/gpu/ws_knob_pairs.sh
#   OUT=DIR bash scripts/gpu/softmax_chains.sh

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
exec bash "$(dirname "${BASH_SOURCE[0]}")/ws_knob_pairs.sh" SOFTMAX_CHAINS 4 1

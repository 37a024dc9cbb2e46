#!/usr/bin/env bash
# Per-iteration clocks of the warp-specialized prefill kernel's consumers (flash_attn_fwd_ws.cu built
# with WS_TRACE=1), on an H100 / H200: do the consumers issue their products in step?
#
#   OUT=DIR bash scripts/gpu/ws_trace.sh SHAPES NAME=SETTINGS [NAME=SETTINGS ...]
#     e.g. fp16-d64-n16384,fp16-d64-n1024 ip0=PERSISTENT=1,PINGPONG=0,ITEM_PIPELINE=0 ip1=...,ITEM_PIPELINE=1
#
# Each SETTINGS (NAME=VALUE,...) goes over the FA3 preset of configs/flash_attn_fwd_ws.json; the
# configuration is built with WS_TRACE=1 and a workspace for the clocks (NAME.spec.json, written by
# scripts/bench/ws_trace_spec.py), emitted (`bench --emit-launch`) and launched by
# scripts/bench/ws_trace.py, which writes NAME.md.
# The traced build is not verified here: run the same settings through hopper_ws.sh or ws_knob_pairs.sh.

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
shapes="${1:?usage: ws_trace.sh SHAPES NAME=SETTINGS ...}"
shift
[ $# -ge 1 ] || { echo "usage: ws_trace.sh SHAPES NAME=SETTINGS ..."; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_begin ws_trace
gpu_host_info > "$out/host.txt"
for item in "$@"; do
  name="${item%%=*}"
  python3 "$root/scripts/bench/ws_trace_spec.py" "$root" "${item#*=}" > "$out/$name.spec.json" || exit 2
  run_step "$name.emit" 0 "$ATTN_TUNE" bench "$out/$name.spec.json" -k prefill_ws -s "$shapes" --emit-launch "$out/$name.emit"
  run_step "$name" 0 python3 scripts/bench/ws_trace.py "$out/$name.emit" --label "$name"
  mv "$out/$name.log" "$out/$name.md"
  rm -rf "$out/$name.emit"
  cat "$out/$name.md"
done
echo "failures: $failures"

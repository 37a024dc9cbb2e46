#!/usr/bin/env bash
# Per-iteration clocks of the warp-specialized prefill kernel's consumers (flash_attn_fwd_ws.cu built
# with WS_TRACE=1), on an H100 / H200: do the consumers issue their products in step?
#
#   OUT=DIR bash scripts/gpu/ws_trace.sh SHAPES NAME=SETTINGS [NAME=SETTINGS ...]
#     e.g. fp16-d64-n16384,fp16-d64-n1024 ip0=PERSISTENT=1,PINGPONG=0,ITEM_PIPELINE=0 ip1=...,ITEM_PIPELINE=1
#
# Each SETTINGS (NAME=VALUE,...) goes over the FA3 preset of configs/flash_attn_fwd_ws.json; the
# configuration is built with WS_TRACE=1 and a workspace for the clocks (a spec of its own, NAME.spec.json),
# emitted (`bench --emit-launch`) and launched by scripts/bench/ws_trace.py, which writes NAME.md.
# The traced build is not verified here: run the same settings through hopper_ws.sh or ws_knob_pairs.sh.
set -uo pipefail
shapes="${1:?usage: ws_trace.sh SHAPES NAME=SETTINGS ...}"
shift
[ $# -ge 1 ] || { echo "usage: ws_trace.sh SHAPES NAME=SETTINGS ..."; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_output_dir "${OUT:?set OUT to the output folder}/ws_trace"
gpu_attn_tune > "$out/setup.log" 2>&1 || { tail -30 "$out/setup.log"; exit 1; }
gpu_host_info > "$out/host.txt"
for item in "$@"; do
  name="${item%%=*}"
  python3 - "$root" "${item#*=}" > "$out/$name.spec.json" <<'PY' || exit 2
import json, sys
root, settings = sys.argv[1], sys.argv[2]
kernel = json.load(open(f"{root}/configs/flash_attn_fwd_ws.json"))["kernels"]["prefill_ws"]
config = dict(kernel["presets"]["FA3"])
for pair in filter(None, settings.split(",")):
    key, value = pair.split("=")
    if key not in config:
        sys.exit(f"ws_trace: {key} is not a parameter of prefill_ws")
    config[key] = int(value)
config["WS_TRACE"] = 1
# 3 clocks x 2048 iterations x up to 3 consumers after the 16 bytes of the persistent grid's counters
print(json.dumps({"attn_tune_spec": 1, "extends": f"{root}/configs/flash_attn_fwd_ws.json", "name": "ws_trace",
                  "kernels": {"prefill_ws": {"params": {k: [v] for k, v in config.items()}, "presets": {"T": config},
                                             "baseline": "T", "workspace_bytes": "16 + 8 * 3 * 2048 * 3"}}}, indent=1))
PY
  run_step "$name.emit" 0 "$ATTN_TUNE" bench "$out/$name.spec.json" -k prefill_ws -s "$shapes" --emit-launch "$out/$name.emit"
  run_step "$name" 0 python3 scripts/bench/ws_trace.py "$out/$name.emit" --label "$name"
  mv "$out/$name.log" "$out/$name.md"
  rm -rf "$out/$name.emit"
  cat "$out/$name.md"
done
echo "failures: $failures"

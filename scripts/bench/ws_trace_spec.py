#!/usr/bin/env python3
"""The spec of one traced build of the warp-specialized prefill kernel, on stdout.

  ws_trace_spec.py ROOT NAME=VALUE,...

The settings go over the FA3 preset of ROOT/configs/flash_attn_fwd_ws.json; the build gets WS_TRACE=1 and a
workspace for the clocks. scripts/gpu/ws_trace.sh runs it for each build it traces, and
tests/cuda/test_ws_trace_compile.cpp compiles what it prints, so the traced build keeps compiling.
"""
import argparse
import json
import sys


def trace_spec(root, settings):
    kernel = json.load(open(f"{root}/configs/flash_attn_fwd_ws.json"))["kernels"]["prefill_ws"]
    config = dict(kernel["presets"]["FA3"])
    for pair in filter(None, settings.split(",")):
        key, value = pair.split("=")
        if key not in config:
            sys.exit(f"ws_trace_spec: {key} is not a parameter of prefill_ws")
        config[key] = int(value)
    config["WS_TRACE"] = 1
    # 3 clocks x 2048 iterations x up to 3 consumers after the 16 bytes of the persistent grid's counters
    return {"attn_tune_spec": 1, "extends": f"{root}/configs/flash_attn_fwd_ws.json", "name": "ws_trace",
            "kernels": {"prefill_ws": {"params": {k: [v] for k, v in config.items()}, "presets": {"T": config},
                                       "baseline": "T", "workspace_bytes": "16 + 8 * 3 * 2048 * 3"}}}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", help="the repository root")
    ap.add_argument("settings", help="NAME=VALUE,... over the FA3 preset")
    args = ap.parse_args()
    print(json.dumps(trace_spec(args.root, args.settings), indent=1))

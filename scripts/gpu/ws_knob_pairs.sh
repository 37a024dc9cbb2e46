#!/usr/bin/env bash
# One knob of the warp-specialized prefill kernel (flash_attn_fwd_ws.cu) against its default,
# side by side on an H100 / H200:
#   1. verify  every configuration of configs/flash_attn_fwd_ws_small.json with KNOB = ON on its
#              edge shapes (the spec's constraints decide which ones take it); a wrong answer stops here
#   2. sweep   two configuration families (D = 64 and D = 128 anchor shapes) with KNOB = OFF and ON
#   3. recheck every configuration of that sweep again, interleaved (A B C ... A B C ...), 3 rounds,
#              so that each pair (OFF / ON, the rest equal) is timed under the same clock
#   4. pairs   re-timed OFF median / ON median per pair (> 1: the knob helps), in pairs.md
#
#   OUT=DIR bash scripts/gpu/ws_knob_pairs.sh KNOB ON [OFF]     # about 5 minutes on an H200 with the build
#
# The families default to the 2026-11-25 winners (D = 64: 3 consumers without overlap; D = 128:
# 2 consumers with overlap), each over STAGES 2 / 3 and PERSISTENT or PINGPONG; FAMILY_D64 and
# FAMILY_D128 (JSON objects of params) replace a family's overrides of those, e.g.
# FAMILY_D64='{"WS_CONSUMERS": [2], "OVERLAP": [1], "PINGPONG": [0, 1], "PERSISTENT": [0]}'.
# SHAPES_D64 / SHAPES_D128 (comma-separated names) replace a family's six shapes; VERIFY_PARAMS (a JSON
# object of params) narrows step 1 to part of the small spec, e.g. VERIFY_PARAMS='{"PINGPONG": [1]}'.

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
knob="${1:?usage: ws_knob_pairs.sh KNOB ON [OFF]}"
on="${2:?usage: ws_knob_pairs.sh KNOB ON [OFF]}"
off="${3:-0}"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_begin "$(echo "$knob" | tr '[:upper:]' '[:lower:]')"
gpu_host_info > "$out/host.txt"
python3 - "$root" "$out" "$knob" "$on" "$off" <<'PY' || exit 2
import json, os, sys
root, out, knob, on, off = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
small = json.load(open(f"{root}/configs/flash_attn_fwd_ws_small.json"))["kernels"]["prefill_ws"]["params"]
if f"#ifndef {knob}\n" not in open(f"{root}/kernels/cuda/flash_attn_fwd_ws.cu").read():
    sys.exit(f"ws_knob_pairs: {knob} is not a knob of kernels/cuda/flash_attn_fwd_ws.cu")
full = json.load(open(f"{root}/configs/flash_attn_fwd_ws.json"))["kernels"]["prefill_ws"]
default = dict(full["presets"]["FA3"])
verify = dict(small, **json.loads(os.environ.get("VERIFY_PARAMS") or "{}"), **{knob: [on]})
json.dump({"attn_tune_spec": 1, "extends": f"{root}/configs/flash_attn_fwd_ws_small.json", "name": f"ws_small_{knob.lower()}",
           "kernels": {"prefill_ws": {"params": verify, "presets": {"P": {k: v[0] for k, v in verify.items()}}, "baseline": "P"}}},
          open(f"{out}/verify_spec.json", "w"), indent=1)
families = {
    "ws_d64": ({"WS_CONSUMERS": [3], "OVERLAP": [0], "PINGPONG": [0], "STAGES": [2, 3], "PERSISTENT": [0, 1]},
               os.environ.get("FAMILY_D64"),
               (os.environ.get("SHAPES_D64") or "fp16-d64-n1024,fp16-d64-n1024-causal,fp16-d64-n4096,fp16-d64-n4096-causal,bf16-d64-n4096,fp16-d64-n16384").split(",")),
    "ws_d128": ({"WS_CONSUMERS": [2], "OVERLAP": [1], "PINGPONG": [0, 1], "STAGES": [2, 3], "PERSISTENT": [0]},
                os.environ.get("FAMILY_D128"),
                (os.environ.get("SHAPES_D128") or "fp16-d128-n1024,fp16-d128-n1024-causal,fp16-d128-n4096,fp16-d128-n4096-causal,bf16-d128-n4096,fp16-d128-n16384").split(",")),
}
kernels = {"prefill_ws": None}
for name, (family, override, shapes) in families.items():
    params = {k: [v] for k, v in default.items()}
    params["STORE_O_TMA"] = [0, 1]  # the spec's constraints keep one per configuration (1 where persistent fits it)
    params.update(json.loads(override) if override else family)
    params[knob] = [off, on]
    first = {k: v[0] for k, v in params.items()}  # the baseline: every parameter's first value, KNOB = OFF
    kernels[name] = {"extends": "prefill_ws", "shapes": shapes, "params": params, "presets": {"P": first}, "baseline": "P"}
json.dump({"attn_tune_spec": 1, "extends": f"{root}/configs/flash_attn_fwd_ws.json", "name": f"ws_pairs_{knob.lower()}",
           "kernels": kernels}, open(f"{out}/pairs_spec.json", "w"), indent=1)
PY
verify_spec "$out/verify_spec.json" || { echo "verification failed: nothing timed"; exit 1; }
run_step sweep 0 "$ATTN_TUNE" sweep "$out/pairs_spec.json" --device cuda:0 --max-time 0.1 --min-samples 5 --warmup-time 0.2 \
  --overwrite -q --out "$out/pairs.json"
run_step recheck 0 "$ATTN_TUNE" bench --recheck "$out/pairs.json" --top 8 --rounds 3 --tolerance 100
python3 - "$out/recheck.log" "$knob" "$off" "$on" > "$out/pairs.md" <<'PY'
import re, statistics, sys
log, knob, off, on = sys.argv[1:]
a, b = f"{knob}={off}", f"{knob}={on}"
rows = {}
for line in open(log):
    m = re.match(r"(\S+)\s+(\S+)\s+\d+\s+[\d.]+\s+([\d.]+)\s+\S+\s+(\S+)", line)
    if m and f"{knob}=" in m.group(4):
        rows[(m.group(1), m.group(2), m.group(4))] = float(m.group(3))
print(f"| kernel | shape | configuration ({a}) | ms {a} | ms {b} | {off} / {on} |")
print("| --- | --- | --- | ---: | ---: | ---: |")
ratios = []
for (k, s, key), ms in sorted(rows.items()):
    twin = (k, s, re.sub(rf"\b{a}\b", b, key))
    if re.search(rf"\b{a}\b", key) and twin in rows:
        ratios.append(ms / rows[twin])
        print(f"| {k} | {s} | {key} | {ms:.4f} | {rows[twin]:.4f} | {ms / rows[twin]:.3f} |")
if ratios:
    print(f"\n{len(ratios)} pairs: median {statistics.median(ratios):.3f}, range {min(ratios):.3f}-{max(ratios):.3f}")
else:
    print("no pairs re-timed")
    sys.exit(1)
PY
cat "$out/pairs.md"
echo "failures: $failures"

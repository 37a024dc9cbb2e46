#!/usr/bin/env bash
# Parts of the warp-specialized prefill kernel's space (flash_attn_fwd_ws.cu) that the main spec leaves
# out, timed side by side with the families that win today, on an H100 / H200:
#   1. verify  every configuration of the experiment on configs/flash_attn_fwd_ws_small.json's edge
#              shapes (masks, causal, window, sinks, ALiBi, bf16); a wrong answer stops here
#   2. sweep   the experiment's kernels on their shapes
#   3. recheck every configuration of the sweep again, interleaved (A B C ... A B C ...), 3 rounds, at the
#              clock the GPU sustains (scripts/gpu/sustained_recheck.sh, into sustained_recheck/), and the
#              sustained winner of each shape beside FA2 and cuDNN there
#   4. compare per kernel and shape, the best re-timed median for each value of the kernel's compared
#              parameter, and its ratio to the first value's (> 1: that value's best is faster), in compare.md
#
#   OUT=DIR bash scripts/gpu/ws_space_compare.sh scripts/gpu/ws_space/EXPERIMENT.json
#
# EXPERIMENT.json: "kernels" (name -> {"params", "shapes"}, each extending prefill_ws),
# "compare" (kernel name -> the parameter whose values are compared) and optionally "constraints",
# which replace the spec's (to let in configurations its register estimate keeps out).

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
experiment="$(realpath "${1:?usage: ws_space_compare.sh EXPERIMENT.json}")"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_begin "$(basename "$experiment" .json)"
gpu_host_info > "$out/host.txt"
cp "$experiment" "$out/experiment.json"
python3 - "$root" "$out" "$experiment" <<'PY' || exit 2
import json, sys
root, out, path = sys.argv[1:]
exp = json.load(open(path))
def kernels(with_shapes):
    ks = {}
    for name, k in exp["kernels"].items():
        block = {"extends": "prefill_ws", "params": k["params"], "presets": {"P": {p: v[0] for p, v in k["params"].items()}},
                 "baseline": "P"}
        if "constraints" in exp:
            block["constraints"] = exp["constraints"]
        if with_shapes:
            block["shapes"] = k["shapes"]
        ks[name] = block
    ks["prefill_ws"] = None  # only the experiment's kernels run
    return ks
for name in exp["compare"]:
    if name not in exp["kernels"]:
        sys.exit(f"ws_space_compare: 'compare' names '{name}', which is not one of the experiment's kernels")
json.dump({"attn_tune_spec": 1, "extends": f"{root}/configs/flash_attn_fwd_ws_small.json", "name": "ws_space_verify",
           "kernels": kernels(False)}, open(f"{out}/verify_spec.json", "w"), indent=1)
json.dump({"attn_tune_spec": 1, "extends": f"{root}/configs/flash_attn_fwd_ws.json", "name": "ws_space",
           "kernels": kernels(True)}, open(f"{out}/sweep_spec.json", "w"), indent=1)
PY
verify_spec "$out/verify_spec.json" || { echo "verification failed: nothing timed"; exit 1; }
run_step sweep 0 "$ATTN_TUNE" sweep "$out/sweep_spec.json" --device cuda:0 --max-time 0.1 --min-samples 5 --warmup-time 0.2 \
  --overwrite -q --out "$out/sweep.json"
shapes="$(python3 -c 'import json, sys; print(",".join(sorted({s for k in json.load(open(sys.argv[1]))["kernels"].values() for s in k["shapes"]})))' "$experiment")"
OUT="$out" TAG="" PEERS_ALL=1 bash "$root/scripts/gpu/sustained_recheck.sh" "$out/sweep.json" "$shapes" 1000 ||
  failures=$((failures + 1))
python3 "$root/scripts/gpu/recheck_files.py" compare "$out/sustained_recheck/recheck.log" "$experiment" > "$out/compare.md" ||
  failures=$((failures + 1))
cat "$out/compare.md"
echo "failures: $failures"

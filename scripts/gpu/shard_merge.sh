#!/usr/bin/env bash
# Shards on one GPU: a prefill sweep run whole, then as --shard 0/2 and
# --shard 1/2 one after the other, the shards merged with --retime-top, and
# the winners compared (README "Tuning on several GPUs and on a cluster").
#
#   scripts/gpu/shard_merge.sh [OUT_DIR]      (default: $OUT)
#
# Writes under OUT_DIR: whole.json, lb.shard-0-of-2.json, lb.shard-1-of-2.json
# (each with its journal), merged.json (with each group's "retimed" top
# RETIME), STEP.log / STEP.cmd / STEP.rc per step, and winners.md: per group
# the unsharded winner, the merged winner and the retimed winner, "same" or a
# declared tie (the winners' retimed medians within TIE_PERCENT), and the
# winner of the committed results/h200 leaderboard of the spec when there is one.
# Shards count from 0: --shard 0/2 and --shard 1/2 are the two halves.
# About 5 minutes on an H100/H200 with the default shapes.
#
# Environment: ATTN_TUNE (default build-gpu/app/attn-tune, built by
# scripts/gpu/setup.sh when missing), CUDA_DEVICE (cuda:0), SPEC
# (configs/flash_attn_fwd.json), SHAPES (fp16-d64-n4096,fp16-d128-n4096-causal),
# RETIME (3), TIE_PERCENT (2), MAX_TIME (0.3, as the committed sweeps).
set -uo pipefail
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_output_dir "${1:-${OUT:?usage: scripts/gpu/shard_merge.sh OUT_DIR (or set OUT)}}"
gpu_attn_tune || exit 1
device="${CUDA_DEVICE:-cuda:0}"
spec="${SPEC:-configs/flash_attn_fwd.json}"
shapes="${SHAPES:-fp16-d64-n4096,fp16-d128-n4096-causal}"
retime="${RETIME:-3}"
tie="${TIE_PERCENT:-2}"
max_time="${MAX_TIME:-0.3}"

gpu_host_info > "$out/host.txt"

common=("$spec" --device "$device" --shape "$shapes" --max-time "$max_time" -q --overwrite)
run_step whole 0 "$ATTN_TUNE" sweep "${common[@]}" --out "$out/whole.json"
run_step shard0 0 "$ATTN_TUNE" sweep "${common[@]}" --out "$out/lb.json" --shard 0/2
run_step shard1 0 "$ATTN_TUNE" sweep "${common[@]}" --out "$out/lb.json" --shard 1/2
run_step merge 0 "$ATTN_TUNE" merge "$out/lb.shard-0-of-2.json" "$out/lb.shard-1-of-2.json" --out "$out/merged.json" \
  --retime-top "$retime" --device "$device"

committed="results/h200/$(basename "$spec")"
python3 - "$out/whole.json" "$out/merged.json" "$committed" "$tie" > "$out/winners.md" <<'PY'
import json, os, sys
whole, merged = (json.load(open(p)) for p in sys.argv[1:3])
committed = json.load(open(sys.argv[3])) if os.path.exists(sys.argv[3]) else None
tie = float(sys.argv[4]) / 100
def best(lb):
    return {(g["kernel"], g["shape"]): g.get("best", {}).get("key") for g in lb["groups"]}
def median(lb, k, key):
    for g in lb["groups"]:
        if (g["kernel"], g["shape"]) == k:
            for e in g["entries"]:
                if e["key"] == key and "timing" in e:
                    return e["timing"]["median_ms"]
w, m, c = best(whole), best(merged), best(committed) if committed else {}
print("# Two shards on one GPU, merged, against the unsharded sweep\n")
print(f"- device: {merged['device']['name']} ({merged['device']['id']})")
print(f"- spec: `{merged['spec']['path']}`, shapes `{merged['spec']['shape_filter']}`")
print(f"- merged from: {', '.join(os.path.basename(p['file']) for p in merged.get('merged_from', []))}")
print(f"- configurations: unsharded {sum(len(g['entries']) for g in whole['groups'])}, "
      f"merged {sum(len(g['entries']) for g in merged['groups'])}, missing {len(merged.get('missing', []))}")
if committed:
    same_code = committed["sources"] == merged["sources"]
    print(f"- committed `{sys.argv[3]}`: its sources {'match' if same_code else 'differ from'} these (sha256)")
print(f"- verdict: *same* when the unsharded and merged winners agree; *tie* when the unsharded winner's "
      f"retimed median is within {100 * tie:g}% of the retimed winner's (or, when it was not retimed, its median in "
      f"the shards within {100 * tie:g}% of the merged winner's)\n")
print("| kernel / shape | unsharded winner (ms) | merged winner (ms) | retimed winner (ms) | verdict |"
      + (" committed winner |" if committed else ""))
print("| --- | --- | --- | --- | --- |" + (" --- |" if committed else ""))
bad = 0
for g in merged["groups"]:
    k = (g["kernel"], g["shape"])
    r = g.get("retimed", {})
    times = {e["key"]: e.get("median_ms") for e in r.get("entries", [])}
    rb = r.get("best")
    def pct(x, y):
        return 100 * (x / y - 1)
    wm, mm = median(merged, k, w.get(k)), median(merged, k, m.get(k))
    if w.get(k) == m.get(k):
        verdict = "same"
        if rb and rb != w.get(k) and times.get(w.get(k)):
            verdict += f" (retimed, {rb} is {pct(times[w[k]], times[rb]):.2f}% faster)"
    elif rb and times.get(w.get(k)) and times[w[k]] <= times[rb] * (1 + tie):
        verdict = f"tie ({pct(times[w[k]], times[rb]):.2f}% retimed)"
    elif wm and mm and wm <= mm * (1 + tie):
        # not among the retimed top: compared as the shards measured them (one GPU, one after the other)
        verdict = f"tie ({pct(wm, mm):.2f}% in the shards)"
    else:
        verdict = "**different**" + (f" (unsharded winner {pct(wm, mm):.1f}% slower in the shards)" if wm and mm else "")
        bad += 1
    def cell(key, ms):
        return f"`{key}` ({ms:.4f})" if key and ms else f"`{key}`"
    row = (f"| {k[0]} / {k[1]} | {cell(w.get(k), median(whole, k, w.get(k)))} | {cell(m.get(k), median(merged, k, m.get(k)))} "
           f"| {cell(rb, times.get(rb))} | {verdict} |")
    if committed: row += f" `{c.get(k)}` |"
    print(row)
print(f"\n{bad} group(s) with different winners.")
sys.exit(1 if bad else 0)
PY
rc=$?
cat "$out/winners.md"
[ "$rc" -eq 0 ] || failures=$((failures + 1))
echo "shard_merge: $failures failure(s); files in $out"
exit $((failures > 0))

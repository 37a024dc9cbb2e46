#!/usr/bin/env bash
# SOFTMAX_CHAINS of the warp-specialized prefill kernel (flash_attn_fwd_ws.cu), side by side:
#   1. verify  every configuration of the small spec with SOFTMAX_CHAINS 4 on its edge shapes
#   2. sweep   the winning families of the 2026-11-25 runs (D = 64: 3 consumers, no overlap;
#              D = 128: 2 consumers, overlap), with and without the chains, on 12 anchor shapes
#   3. recheck every configuration of that sweep again, interleaved (A B C ... A B C ...), 3 rounds,
#              so that each pair (chains 1 / 4, the rest equal) is timed under the same clock
#   4. pairs   re-timed chains-1 median / chains-4 median per pair (> 1: the chains help)
#
#   OUT=DIR bash scripts/gpu/softmax_chains.sh        # about 5 minutes on an H200 with the build
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_output_dir "${OUT:?set OUT to the output folder}/softmax_chains"
gpu_attn_tune > "$out/setup.log" 2>&1 || { tail -30 "$out/setup.log"; exit 1; }
gpu_host_info > "$out/host.txt"
cat > "$out/verify_spec.json" <<JSON
{ "attn_tune_spec": 1, "extends": "$root/configs/flash_attn_fwd_ws_small.json", "name": "flash_attn_fwd_ws_small_chains",
  "kernels": { "prefill_ws": { "baseline": "C4", "presets": { "C4": { "WS_CONSUMERS": 2, "OVERLAP": 1, "PINGPONG": 1,
    "CONS_ROWS": 64, "BLOCK_N": 128, "STAGES": 2, "REG_SPLIT": 1, "PERSISTENT": 0, "CLUSTER": 1, "EXP_POLY": 0, "RESCALE_SKIP": 0, "SOFTMAX_CHAINS": 4 } }, "params": { "WS_CONSUMERS": [1, 2, 3], "CONS_ROWS": [64, 128],
    "BLOCK_N": [64, 128], "STAGES": [2, 3], "REG_SPLIT": [0, 1], "OVERLAP": [0, 1], "PINGPONG": [0, 1],
    "PERSISTENT": [0, 1], "CLUSTER": [1, 2], "EXP_POLY": [0], "RESCALE_SKIP": [0], "SOFTMAX_CHAINS": [4] } } } }
JSON
cat > "$out/pairs_spec.json" <<JSON
{ "attn_tune_spec": 1, "extends": "$root/configs/flash_attn_fwd_ws.json", "name": "flash_attn_fwd_ws_chains",
  "kernels": {
    "prefill_ws": null,
    "ws_d64": { "extends": "prefill_ws", "baseline": "P", "presets": { "P": { "WS_CONSUMERS": 3, "OVERLAP": 0, "PINGPONG": 0,
      "CONS_ROWS": 64, "BLOCK_N": 128, "STAGES": 2, "REG_SPLIT": 1, "PERSISTENT": 0, "CLUSTER": 1, "EXP_POLY": 0, "RESCALE_SKIP": 0, "SOFTMAX_CHAINS": 1 } },
      "shapes": ["fp16-d64-n1024", "fp16-d64-n1024-causal", "fp16-d64-n4096", "fp16-d64-n4096-causal", "bf16-d64-n4096", "fp16-d64-n16384"],
      "params": { "WS_CONSUMERS": [3], "CONS_ROWS": [64], "BLOCK_N": [128], "STAGES": [2, 3], "REG_SPLIT": [1], "OVERLAP": [0],
                  "PINGPONG": [0], "PERSISTENT": [0, 1], "CLUSTER": [1], "EXP_POLY": [0], "RESCALE_SKIP": [0], "SOFTMAX_CHAINS": [1, 4] } },
    "ws_d128": { "extends": "prefill_ws", "baseline": "P", "presets": { "P": { "WS_CONSUMERS": 2, "OVERLAP": 1, "PINGPONG": 0,
      "CONS_ROWS": 64, "BLOCK_N": 128, "STAGES": 2, "REG_SPLIT": 1, "PERSISTENT": 0, "CLUSTER": 1, "EXP_POLY": 0, "RESCALE_SKIP": 0, "SOFTMAX_CHAINS": 1 } },
      "shapes": ["fp16-d128-n1024", "fp16-d128-n1024-causal", "fp16-d128-n4096", "fp16-d128-n4096-causal", "bf16-d128-n4096", "fp16-d128-n16384"],
      "params": { "WS_CONSUMERS": [2], "CONS_ROWS": [64], "BLOCK_N": [128], "STAGES": [2, 3], "REG_SPLIT": [1], "OVERLAP": [1],
                  "PINGPONG": [0, 1], "PERSISTENT": [0], "CLUSTER": [1], "EXP_POLY": [0], "RESCALE_SKIP": [0], "SOFTMAX_CHAINS": [1, 4] } } } }
JSON
run_step verify 0 "$ATTN_TUNE" sweep "$out/verify_spec.json" --device cuda:0 --max-time 0.02 --min-samples 1 --warmup 0 \
  --warmup-time 0 --watchdog 15 --overwrite -q --out "$out/verify.json"
python3 -c "
import collections, json, sys
d = json.load(open(sys.argv[1]))
n = collections.Counter(e['status'] for g in d['groups'] for e in g['entries'])
print('verify:', dict(n)); sys.exit(0 if set(n) <= {'ok', 'skipped'} and n['ok'] else 1)" "$out/verify.json" || { echo "verification failed: nothing timed"; exit 1; }
run_step sweep 0 "$ATTN_TUNE" sweep "$out/pairs_spec.json" --device cuda:0 --max-time 0.1 --min-samples 5 --warmup-time 0.2 \
  --overwrite -q --out "$out/pairs.json"
run_step recheck 0 "$ATTN_TUNE" bench --recheck "$out/pairs.json" --top 8 --rounds 3 --tolerance 100
python3 - "$out/recheck.log" > "$out/pairs.md" <<'PY'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+)\s+(\S+)\s+\d+\s+[\d.]+\s+([\d.]+)\s+\S+\s+(\S+)", line)
    if m and "SOFTMAX_CHAINS=" in m.group(4):
        rows[(m.group(1), m.group(2), m.group(4))] = float(m.group(3))
print("| kernel | shape | configuration (chains 1) | ms chains 1 | ms chains 4 | 1 / 4 |")
print("| --- | --- | --- | ---: | ---: | ---: |")
ratios = []
for (k, s, key), ms in sorted(rows.items()):
    if "SOFTMAX_CHAINS=1" in key and (k, s, key.replace("SOFTMAX_CHAINS=1", "SOFTMAX_CHAINS=4")) in rows:
        ms4 = rows[(k, s, key.replace("SOFTMAX_CHAINS=1", "SOFTMAX_CHAINS=4"))]
        ratios.append(ms / ms4)
        print(f"| {k} | {s} | {key.replace(',SOFTMAX_CHAINS=1', '')} | {ms:.4f} | {ms4:.4f} | {ms / ms4:.3f} |")
if ratios:
    print(f"\n{len(ratios)} pairs: median {statistics.median(ratios):.3f}, range {min(ratios):.3f}-{max(ratios):.3f}")
PY
cat "$out/pairs.md"
echo "failures: $failures"

#!/usr/bin/env bash
# GPU evidence of staged measurement (docs/timing.md, "Stages"), one part per call:
#
#   OUT=DIR bash scripts/gpu/staged_measurement.sh race       # Kernel Tuner race (3 repetitions), then the
#       winner re-timed by a long `attn-tune bench` and by the comparison script, interleaved
#   OUT=DIR bash scripts/gpu/staged_measurement.sh decode     # one 2,016-configuration decode_large shape swept
#       with the defaults, then a thorough sweep of every 16th configuration (its wall time x 16 is today's default's),
#       then the staged top 4 measured thorough
#   OUT=DIR bash scripts/gpu/staged_measurement.sh agreement  # the warp-specialized prefill kernel swept (staged,
#       4 random configurations a shape) on the 15 prefill anchors and two long shapes, then the comparison
#       script's interleaved timing of each winner beside the leaderboard's median
#
# Each part writes DIR/<part>/ with every step's .cmd, .log and .rc, and the leaderboards.

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help | "") awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
part=$1
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_begin "$part"
gpu_host_info > "$out/host.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv >> "$out/host.txt" 2>&1
B=$ATTN_TUNE
failures=0
# What comes back from the GPU machine is few files: everything but the summary goes into one archive.
trap 'exit 143' TERM  # a timeout still archives what was done
trap 'cd "$out/.." && tar czf "$part.tgz" "$part" && find "$part" -type f ! -name "*.md" ! -name host.txt ! -name "*.rc" -delete' EXIT

case "$part" in
  race)
    run_step race 0 env OUT="$out/race" bash scripts/compare/kernel_tuner_race.sh --attn-tune "$B" --repeats 3
    cat "$out/race/kernel_tuner_race.md"
    winner=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['attn_tune_cold']['winner'])" \
      "$out/race/kernel_tuner_race.json")
    run_step bench_long 0 "$B" bench configs/flash_attn_f32_f16_cuda.json -k prefill -s prefill-1k-causal-gqa \
      --set "$winner" --device cuda:0 --min-samples 200 --max-samples 5000 --max-time 4 --json
    run_step peers 0 python3 scripts/compare/attention_peers.py --attn-tune "$B" \
      --leaderboard "$out/race/attn_tune_cold.json" --reps 5 --peers fa2 --out "$out/peers"
    ;;
  decode)
    shape=fp16-h32-kv8-n4096
    cache=/tmp/staged-decode-cache  # not under $out: it is archived
    run_step staged 0 "$B" sweep configs/flash_attn_decode_large.json -s "$shape" --device cuda:0 \
      --cache-dir "$cache" --out "$out/staged.json"
    # Today's default, on every 16th configuration (the compile cache is warm now: timing is what it costs).
    run_step thorough_share 0 "$B" sweep configs/flash_attn_decode_large.json -s "$shape" --device cuda:0 \
      --cache-dir "$cache" --measure thorough --shard 1/16 --remeasure --out "$out/thorough_share.json"
    # The staged top 4, each measured thorough: the same winner, or a declared tie?
    keys=$(python3 -c "
import json, sys
sys.path.insert(0, 'scripts/lib')
import leaderboards
lb = leaderboards.load(sys.argv[1])
g = lb['groups'][0]
print(';'.join(e['key'] for e in leaderboards.ranked(g)[:4]))" "$out/staged.json")
    IFS=';' read -ra top <<< "$keys"
    i=0
    for k in "${top[@]}"; do
      i=$((i + 1))
      run_step "thorough_top$i" 0 "$B" bench configs/flash_attn_decode_large.json -s "$shape" --device cuda:0 \
        --set "$k" --json
    done
    ;;
  agreement)
    A15=fp16-d64-n1024,fp16-d64-n1024-causal,fp16-d64-n4096,fp16-d64-n4096-causal,fp16-d64-n16384,fp16-d64-n16384-causal,fp16-d128-n1024,fp16-d128-n1024-causal,fp16-d128-n4096,fp16-d128-n4096-causal,fp16-d128-n16384,fp16-d128-n16384-causal,bf16-d128-n4096,bf16-d128-n4096-causal,bf16-d64-n4096
    sweep=(--device cuda:0 --strategy random --budget-evals 4 --seed 1)
    run_step sweep_anchors 0 timeout 200 "$B" sweep configs/flash_attn_fwd_ws.json --shape "$A15" "${sweep[@]}" \
      --out "$out/ws_anchors.json"
    run_step sweep_llama 0 timeout 120 "$B" sweep configs/flash_attn_fwd_ws.json \
      --shape 'fp16-d128-n4096-causal[B=2,Hq=32,Hkv=8,Nq=3000,Nkv=3000]' "${sweep[@]}" --out "$out/ws_llama.json"
    run_step sweep_long 0 timeout 120 "$B" sweep configs/flash_attn_fwd_ws.json \
      --shape 'bf16-d128-n4096[B=1,Hq=16,Nq=8000,Nkv=8000]' "${sweep[@]}" --out "$out/ws_long.json"
    run_step peers 0 timeout 200 python3 scripts/compare/attention_peers.py --attn-tune "$B" \
      --leaderboard "$out/ws_anchors.json" --leaderboard "$out/ws_llama.json" --leaderboard "$out/ws_long.json" \
      --reps 3 --peers fa2 --out "$out/peers"
    cat "$out/peers/attention_peers.md" 2>/dev/null | head -60
    ;;
  *) echo "unknown part '$part': race, decode or agreement"; exit 2 ;;
esac
echo "failures: $failures"

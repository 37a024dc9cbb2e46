#!/usr/bin/env bash
# Leaderboard medians next to the independent harness (scripts/compare/attention_peers.py), same GPU,
# same session: the 15 prefill anchor shapes (3 random wgmma configurations each) and the 5 decode
# anchor shapes (decode and decode_cpasync), then the script's interleaved timing (3 repetitions) of
# each shape's best configuration, warmed up by time as the sweep is; then the same script with
# warm-up by count only on the short fp16 D = 64 shapes (the burst it used to time them in).
#
#   OUT=DIR bash scripts/gpu/agreement.sh          # GRAPH=1: also a --timing graph decode sweep
#
# Writes $OUT/agreement.tgz (every step's .cmd/.log/.rc, the leaderboards, peers/ and burst/) and
# $OUT/agreement.md (scripts/compare/agreement_clocks.py of both peer runs).
#
#   TURNS=1 OUT=DIR bash scripts/gpu/agreement.sh  # the two harnesses in turns (docs/timing.md)
#
# sweeps one random configuration per shape (15 prefill anchors; the 5 decode anchors on decode_cpasync),
# then times each of these 20 configurations 3 times with the comparison script beside FA2 and cuDNN,
# each repetition right after `attn-tune bench` timed the same configuration (--bench-turns). Progress
# per row on the console; agreement.md compares the script with bench in turns, raw and at equal clock;
# turns/bench_turns/ holds every bench result. About 7-8 minutes on an H200 after the setup.

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
gpu_begin agreement
trap 'cd "$out/.." && tar czf agreement.tgz agreement && rm -rf agreement' EXIT
gpu_host_info > "$out/host.txt"
B=$ATTN_TUNE
A15=fp16-d64-n1024,fp16-d64-n1024-causal,fp16-d64-n4096,fp16-d64-n4096-causal,fp16-d64-n16384,fp16-d64-n16384-causal,fp16-d128-n1024,fp16-d128-n1024-causal,fp16-d128-n4096,fp16-d128-n4096-causal,fp16-d128-n16384,fp16-d128-n16384-causal,bf16-d128-n4096,bf16-d128-n4096-causal,bf16-d64-n4096
DEC=fp16-h32-kv32-n4096,fp16-h32-kv32-n32768,fp16-h32-kv8-n4096,fp16-h32-kv8-n32768,bf16-h32-kv8-n32768
sweep=(--device cuda:0 --strategy random --budget-evals 3 --seed 1 --max-time 0.3)
if [ "${TURNS:-0}" = 1 ]; then
  # Only each shape's configuration is re-timed: one per shape is enough, and the time goes to the turns.
  sweep=(--device cuda:0 --strategy random --budget-evals 1 --seed 1 --max-time 0.3)
  start=$SECONDS
  run_step sweep_wgmma 0 timeout 150 "$B" sweep configs/flash_attn_fwd_wgmma.json --shape "$A15" "${sweep[@]}" --out "$out/wgmma_anchor.json"
  run_step sweep_decode 0 timeout 120 "$B" sweep configs/flash_attn_decode.json -k decode_cpasync --shape "$DEC" "${sweep[@]}" --out "$out/decode_anchor.json"
  # The comparison writes its tables after every row: cut short at the time left, it keeps the rows done.
  left=$((480 - (SECONDS - start)))
  [ "$left" -ge 60 ] || left=60
  cmd=(timeout "$left" python3 scripts/compare/attention_peers.py --attn-tune "$B" --leaderboard "$out/wgmma_anchor.json"
       --leaderboard "$out/decode_anchor.json" --reps 3 --peers fa2,cudnn --bench-turns --out "$out/turns")
  printf '%q ' "${cmd[@]}" > "$out/turns.cmd"
  echo "turns: at most $left s; per row:"
  step_start=$SECONDS
  "${cmd[@]}" 2>&1 | tee "$out/turns.log"
  rc=${PIPESTATUS[0]}
  echo "$rc" > "$out/turns.rc"
  echo "turns: exit $rc, $((SECONDS - step_start)) s"
  [ "$rc" = 0 ] || failures=$((failures + 1))
  { echo "# the comparison script and attn-tune bench in turns (3 repetitions; sweep: 1 configuration per shape)"
    python3 scripts/compare/agreement_clocks.py "$out" "$out/turns/attention_peers.json"; } > "$out/../agreement.md" 2>&1
  cat "$out/../agreement.md"
  echo "failures: $failures"
  exit 0
fi
run_step sweep_wgmma 0 timeout 200 "$B" sweep configs/flash_attn_fwd_wgmma.json --shape "$A15" "${sweep[@]}" --out "$out/wgmma_anchor.json"
run_step sweep_decode 0 timeout 200 "$B" sweep configs/flash_attn_decode.json --shape "$DEC" "${sweep[@]}" --out "$out/decode_anchor.json"
if [ "${GRAPH:-0}" = 1 ]; then
  run_step sweep_decode_graph 0 timeout 200 "$B" sweep configs/flash_attn_decode.json --shape "$DEC" "${sweep[@]}" --timing graph --out "$out/decode_anchor.graph.json"
fi
run_step peers 0 timeout 400 python3 scripts/compare/attention_peers.py --attn-tune "$B" --leaderboard "$out/wgmma_anchor.json" --leaderboard "$out/decode_anchor.json" --reps 3 --out "$out/peers"
run_step burst 0 timeout 120 python3 scripts/compare/attention_peers.py --attn-tune "$B" --leaderboard "$out/wgmma_anchor.json" --shape 'fp16-d64-n1024*,fp16-d64-n4096*' --peers cudnn --warmup-time 0 --reps 3 --out "$out/burst"
{ echo "# sustained (script warmed up 0.5 s, as the sweep)"; python3 scripts/compare/agreement_clocks.py "$out" "$out/peers/attention_peers.json"
  echo; echo "# burst (script warmed up by count only)"; python3 scripts/compare/agreement_clocks.py "$out" "$out/burst/attention_peers.json"; } > "$out/../agreement.md" 2>&1
cat "$out/../agreement.md"
echo "failures: $failures"

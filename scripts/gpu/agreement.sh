# Leaderboard medians next to the independent harness (3 interleaved reps); graph vs cold on decode.
set -uo pipefail
R=$OUT; W=$R/work; mkdir -p $W
trap 'cd $R && tar czf bundle_b.tgz work && rm -rf work' EXIT
source scripts/gpu/setup.sh > $W/setup.log 2>&1 || { tail -30 $W/setup.log; exit 1; }
B=$ATTN_TUNE
A15=fp16-d64-n1024,fp16-d64-n1024-causal,fp16-d64-n4096,fp16-d64-n4096-causal,fp16-d64-n16384,fp16-d64-n16384-causal,fp16-d128-n1024,fp16-d128-n1024-causal,fp16-d128-n4096,fp16-d128-n4096-causal,fp16-d128-n16384,fp16-d128-n16384-causal,bf16-d128-n4096,bf16-d128-n4096-causal,bf16-d64-n4096
DEC=fp16-h32-kv32-n4096,fp16-h32-kv32-n32768,fp16-h32-kv8-n4096,fp16-h32-kv8-n32768,bf16-h32-kv8-n32768
run() { local n=$1; shift; echo "== $n: $*" | tee -a $W/commands.txt; local t0=$(date +%s); timeout ${TMO:-200} "$@" > $W/$n.log 2>&1; echo "   exit $? in $(( $(date +%s) - t0 )) s" | tee -a $W/commands.txt; tail -4 $W/$n.log; }
run sweep_wgmma $B sweep configs/flash_attn_fwd_wgmma.json --device cuda:0 --shape $A15 --strategy random --budget-evals 3 --seed 1 --max-time 0.3 --out $W/wgmma_anchor.json
run sweep_decode $B sweep configs/flash_attn_decode.json --device cuda:0 --shape $DEC --strategy random --budget-evals 3 --seed 1 --max-time 0.3 --out $W/decode_anchor.json
run sweep_decode_graph $B sweep configs/flash_attn_decode.json --device cuda:0 --shape $DEC --strategy random --budget-evals 3 --seed 1 --max-time 0.3 --timing graph --out $W/decode_anchor.graph.json
TMO=300 run peers python3 scripts/compare/attention_peers.py --attn-tune $B --leaderboard $W/wgmma_anchor.json --leaderboard $W/decode_anchor.json --reps 3 --out $W/peers
tail -30 $W/peers/attention_peers.md 2>/dev/null

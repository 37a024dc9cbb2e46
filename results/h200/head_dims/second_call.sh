#!/usr/bin/env bash
# Lead's GPU call: head-dim peers on the leaderboards of the first head_dims.sh run, then the decode head-dim sweep and its peers.
set -uo pipefail
o=$OUT/hd2; mkdir -p $o
source scripts/gpu/setup.sh > $o/build.log 2>&1 || { tail -30 $o/build.log; exit 1; }
bin=build-gpu/app/attn-tune
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > $o/nvidia-smi.txt
SECONDS=0
python3 scripts/compare/attention_peers.py --attn-tune $bin --leaderboard runs/hd/flash_attn_fwd.json \
  --leaderboard runs/hd/flash_attn_fwd_wgmma.json --shape '*-d80-*,*-d96-*,*-d256-*' --reps 3 --out $o/attention_peers_prefill > $o/peers_prefill.log 2>&1
echo "peers_prefill rc=$? at $SECONDS s"
decode_shapes="fp16-d80-h32-kv8-n4096,fp16-d80-h32-kv8-n32768,bf16-d80-h32-kv8-n32768,fp16-d96-h32-kv8-n4096,fp16-d96-h32-kv8-n32768,bf16-d96-h32-kv8-n32768,fp16-d112-h32-kv8-n4096,fp16-d112-h32-kv8-n32768,bf16-d112-h32-kv8-n32768"
timeout 200 $bin sweep configs/flash_attn_decode.json --shape "$decode_shapes" --device cuda:0 --warmup-time 0.1 --min-samples 5 --max-time 0.1 --out $o/flash_attn_decode.json --overwrite > $o/sweep_decode.log 2>&1
echo "decode sweep rc=$? at $SECONDS s"
if [ -f $o/flash_attn_decode.json ] && [ $SECONDS -lt 430 ]; then
  timeout 120 python3 scripts/compare/attention_peers.py --attn-tune $bin --leaderboard $o/flash_attn_decode.json --shape '*-d80-*-n32768,*-d96-*-n32768' --reps 3 --out $o/attention_peers_decode > $o/peers_decode.log 2>&1
  echo "peers_decode rc=$? at $SECONDS s"
fi
cd $OUT && tar czf hd2.tar.gz hd2 && rm -rf hd2

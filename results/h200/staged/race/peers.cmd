python3 scripts/compare/attention_peers.py --attn-tune /work/main/build-gpu/app/attn-tune --leaderboard /root/out/race/race/attn_tune_cold.json --reps 5 --peers fa2 --out /root/out/race/peers 

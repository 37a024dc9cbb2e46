/work/main/build-gpu/app/attn-tune bench --recheck /root/out/r/wait_after_exp/pairs.json --top 8 --rounds 3 --tolerance 100 

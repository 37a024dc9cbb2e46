/work/main/build-gpu/app/attn-tune bench --recheck /root/out/r/unmasked_loop/pairs.json --top 8 --rounds 3 --tolerance 100 

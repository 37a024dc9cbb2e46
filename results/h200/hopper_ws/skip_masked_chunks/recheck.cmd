/work/main/build-gpu/app/attn-tune bench --recheck /root/out/skip_masked_chunks/pairs.json --top 8 --rounds 3 --tolerance 100 

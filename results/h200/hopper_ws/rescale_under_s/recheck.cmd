/work/main/build-gpu/app/attn-tune bench --recheck /root/out/r/rescale_under_s/pairs.json --top 8 --rounds 3 --tolerance 100 

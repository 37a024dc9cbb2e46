/work/main/build-gpu/app/attn-tune bench --recheck /root/out/r/fa3_tiles/sweep.json --top 1000 --rounds 3 --tolerance 100 

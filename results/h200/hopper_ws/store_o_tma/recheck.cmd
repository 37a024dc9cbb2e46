/work/main/build-gpu/app/attn-tune bench --recheck /root/out/store_o_tma/pairs.json --top 8 --rounds 3 --tolerance 100 

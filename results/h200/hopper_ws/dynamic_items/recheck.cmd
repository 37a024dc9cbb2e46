/work/main/build-gpu/app/attn-tune bench --recheck /root/out/dynamic_items/pairs.json --top 8 --rounds 3 --tolerance 100 

/work/main/build-gpu/app/attn-tune bench --recheck /root/out/item_pipeline/pairs.json --top 8 --rounds 3 --tolerance 100 

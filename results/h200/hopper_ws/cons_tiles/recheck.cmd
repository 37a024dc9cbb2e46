/work/main/build-gpu/app/attn-tune bench --recheck /tmp/o/cons_tiles/pairs.json --top 8 --rounds 3 --tolerance 100 

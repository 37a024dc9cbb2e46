/work/main/build-gpu/app/attn-tune bench --recheck /root/out/l2_section_kb/pairs.json --top 8 --rounds 3 --tolerance 100 

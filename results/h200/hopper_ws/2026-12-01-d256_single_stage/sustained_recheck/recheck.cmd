/work/main/build-gpu/app/attn-tune bench /root/out/d256_single_stage/sweep_spec.json --recheck /root/out/d256_single_stage/sustained_recheck/sustained.json --top 1000 --rounds 3 --tolerance 100 

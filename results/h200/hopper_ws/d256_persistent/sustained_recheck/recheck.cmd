/work/main/build-gpu/app/attn-tune bench /root/out/r/d256_persistent/sweep_spec.json --recheck /root/out/r/d256_persistent/sustained_recheck/sustained.json --top 1000 --rounds 3 --tolerance 100 

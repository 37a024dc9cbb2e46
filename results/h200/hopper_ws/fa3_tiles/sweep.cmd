/work/main/build-gpu/app/attn-tune sweep /root/out/r/fa3_tiles/sweep_spec.json --device cuda:0 --max-time 0.1 --min-samples 5 --warmup-time 0.2 --overwrite -q --out /root/out/r/fa3_tiles/sweep.json 

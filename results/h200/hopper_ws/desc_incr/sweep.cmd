/work/main/build-gpu/app/attn-tune sweep /root/out/desc_incr/pairs_spec.json --device cuda:0 --max-time 0.1 --min-samples 5 --warmup-time 0.2 --overwrite -q --out /root/out/desc_incr/pairs.json 

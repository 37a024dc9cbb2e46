/work/main/build-gpu/app/attn-tune sweep configs/flash_attn_fwd.json --device cuda:0 --shape fp16-d64-n4096,fp16-d128-n4096-causal --max-time 0.3 -q --overwrite --out /root/out/sm/whole.json

/work/main/build-gpu/app/attn-tune bench /work/main/configs/flash_attn_fwd_ws.json --recheck /root/out/hopper_ws/sustained_recheck/sustained.json --top 3 --rounds 3 --tolerance 100 

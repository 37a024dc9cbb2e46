/work/main/build-gpu/app/attn-tune bench /work/main/configs/flash_attn_fwd_ws.json --recheck /root/out/r/sustained_recheck-rest/sustained.json --top 5 --rounds 3 --tolerance 100 

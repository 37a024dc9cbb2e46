/work/main/build-gpu/app/attn-tune sweep configs/flash_attn_decode_large.json -s fp16-h32-kv8-n4096 --device cuda:0 --cache-dir /tmp/staged-decode-cache --out /root/out/decode/staged.json 

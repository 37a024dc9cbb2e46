attn-tune determinism configs/flash_attn_decode.json -k decode_cpasync --preset deterministic --quick --device cuda:0 --out /root/g4/det-cpasync.json

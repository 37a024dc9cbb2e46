/root/attn-build/app/attn-tune sweep configs/sliding_window_attention_small.json --device cuda:0 --max-time 0.05 --out /root/g3/a/sliding_window_attention_small.cuda.json --overwrite 

/root/attn-build/app/attn-tune sweep configs/sliding_window_fwd.json --device cuda:0 --max-time 0.3 --out /root/g3/a/sliding_window_fwd.json --overwrite 

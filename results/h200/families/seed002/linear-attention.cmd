/root/attn-build/app/attn-tune sweep configs/linear_attention.json --device cuda:0 --max-time 0.3 --out /root/g3/a/linear_attention.json --overwrite 

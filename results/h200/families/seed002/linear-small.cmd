/root/attn-build/app/attn-tune sweep configs/linear_attention_small.json --device cuda:0 --max-time 0.05 --out /root/g3/a/linear_attention_small.cuda.json --overwrite 
